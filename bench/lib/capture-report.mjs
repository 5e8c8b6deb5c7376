/**
 * The capture scenario's table (see scenarios/capture.mjs), in RESULTS.md and between the
 * `bench:capture:start` / `bench:capture:end` markers of the README and docs/capture.md.
 */
export const CAPTURE_START = '<!-- bench:capture:start -->'
export const CAPTURE_END = '<!-- bench:capture:end -->'

const LABEL = {
  none: 'without capture',
  context: 'without capture, a context per request',
  'sample-0': 'capture, `sample: 0`',
  'sample-0.1': "capture, `sample: 0.1, keep: 'failed'`",
  'sample-1': "capture, `sample: 1, keep: 'failed'`",
  'keep-all': "capture, `sample: 1, keep: 'all'`",
}

/** One table per Node.js version measured, and what was measured. */
export function captureSection(runs) {
  const out = []
  for (const run of runs) {
    out.push(
      `Node.js ${run.node}: ${run.amount} runs per variant and round, ${run.connections} at a time, ${run.rounds} rounds in rotating order after a warm-up round; medians, and in parentheses the median of each round's ratio to the server without capture. Load average ${(run.load ?? []).join(', ')} as the runs ended.`,
      '',
      '| server | p50 latency | p99 latency | throughput | server CPU per run | peak RSS |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
    )
    for (const [variant, row] of Object.entries(run.variants)) {
      const vs = (field, value) => (variant === 'none' ? value : `${value} (${signed(row.ratios[field])})`)
      out.push(
        `| ${LABEL[variant]} | ${vs('p50', `${Math.round(row.p50)} ms`)} | ${vs('p99', `${Math.round(row.p99)} ms`)} | ${vs('rps', `${row.rps.toFixed(1)} runs/s`)} | ${vs('cpuPerRun', `${row.cpuPerRun.toFixed(2)} ms`)} | ${rss(variant, row)} |`,
      )
    }
    const s = run.stats
    const dropped = (stats) => Object.values(stats.dropped).reduce((a, b) => a + b, 0)
    out.push(
      '',
      `With \`sample: 1, keep: 'failed'\` the server recorded ${s.recorded} runs, kept the ${s.written} that failed (${run.files} files) and discarded ${s.discarded}; dropped: ${dropped(s)}.${run.keptAll ? ` With \`keep: 'all'\` it wrote ${run.keptAll.written} of ${run.keptAll.recorded}; dropped: ${dropped(run.keptAll)}.` : ''}`,
      '',
    )
  }
  return out
}

function rss(variant, row) {
  if (row.rssMb === undefined) return '–'
  const mb = `${Math.round(row.rssMb)} MB`
  if (variant === 'none') return mb
  const above = Math.round(row.rssAboveMb)
  return `${mb} (${above >= 0 ? '+' : '−'}${Math.abs(above)} MB)`
}

function signed(ratio) {
  const percent = (ratio - 1) * 100
  return `${percent >= 0 ? '+' : '−'}${Math.abs(percent).toFixed(1)}%`
}

/** `text` with the block between its capture markers replaced by the tables of `runs`. */
export function updateCaptureTables(text, runs) {
  const start = text.indexOf(CAPTURE_START)
  const end = text.indexOf(CAPTURE_END)
  if (start === -1 || end < start) {
    throw new Error(`bench: no ${CAPTURE_START} ... ${CAPTURE_END} pair to write the capture table between`)
  }
  return `${text.slice(0, start + CAPTURE_START.length)}\n\n${captureSection(runs).join('\n').trim()}\n\n${text.slice(end)}`
}
