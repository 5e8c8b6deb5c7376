/** Median, spread and formatting for repeated measurements. */

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Interquartile spread as a fraction of the median (0.08 = ±8 %). */
export function spread(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))]
  const m = median(values)
  return m === 0 ? 0 : (q(0.75) - q(0.25)) / 2 / m
}

/** The least and the greatest of `values`. */
export function extremes(values) {
  return { min: Math.min(...values), max: Math.max(...values) }
}

export function summarize(values) {
  return { median: median(values), spread: spread(values), n: values.length }
}

/** Formats milliseconds with a unit that keeps three significant digits. */
export function formatMs(ms) {
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`
  if (ms < 1000) return `${ms.toPrecision(3)} ms`
  return `${(ms / 1000).toPrecision(3)} s`
}

export function formatTime(summary) {
  return `${formatMs(summary.median)} ±${Math.round(summary.spread * 100)}%`
}

export function formatRatio(ratio) {
  return `${ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(1)}×`
}

export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`
}

/**
 * Runs every contender once per round, in a rotating order, after `warmup` untimed rounds:
 * contenders share the machine's noise, and ratios are taken per round, then their median.
 */
export async function rounds(contenders, { warmup, repeat }, once) {
  const times = Object.fromEntries(contenders.map((c) => [c, []]))
  for (let r = 0; r < warmup + repeat; r++) {
    const order = contenders.map((_, i) => contenders[(i + r) % contenders.length])
    for (const c of order) {
      const ms = await once(c)
      if (r >= warmup) times[c].push(ms)
    }
  }
  return times
}

/**
 * Times replays of the recording `name` with `rounds`: each contender opens a session, runs
 * `job(contender)` in it and closes it; the time of the run alone, divided by `per` (the number
 * of requests it makes, for a per-request time).
 */
export async function timeReplays({ contenders, names, config }, name, job, per = 1) {
  return rounds(names, config.rounds, async (c) => {
    const session = await contenders[c].open(name)
    const started = performance.now()
    await session.run(job(c))
    const ms = performance.now() - started
    await session.close()
    return ms / per
  })
}

/** Ratio of each round's time to the reference's time in the same round, summarized. */
export function ratioTo(times, reference) {
  return times.map((t, i) => t / reference[i])
}
