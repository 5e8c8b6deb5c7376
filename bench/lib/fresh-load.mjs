/** Load time and memory of one recording, in fresh processes (`load-child.mjs`), medians over `repeat`. */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { extremes, median, spread } from './stats.mjs'

const run = promisify(execFile)
const CHILD = new URL('./load-child.mjs', import.meta.url).pathname

/**
 * The wall time of a load in a fresh process moves with whatever else the machine runs (a run
 * on a loaded 2-core machine measured 40 ms where a quiet one measured 11): each load is reported
 * with the least and the greatest of its processes and with its CPU time, which waiting for a
 * core does not grow.
 *
 * `tool` loads `path` (which holds `expected` decisions or requests) in `repeat` fresh processes,
 * after one untimed pair; each load is paired with an `empty` process that sets the tool up and
 * loads nothing, whose peak RSS growth is subtracted. The children run asynchronously: a blocked
 * event loop would keep this process's loopback servers from closing their idle connections on
 * time, and the next request would meet a connection closed under it.
 */
export async function measureFreshLoad({ tool, path, expected, repeat }) {
  const runs = { load: [], empty: [] }
  for (let i = 0; i < repeat + 1; i++) {
    for (const what of ['load', 'empty']) {
      const args = ['--expose-gc', CHILD, tool, what, path, String(expected)]
      const out = JSON.parse((await run(process.execPath, args, { encoding: 'utf8' })).stdout)
      if (i > 0) runs[what].push(out)
    }
  }
  const ms = runs.load.map((r) => r.ms)
  const cpu = runs.load.map((r) => r.cpuMs)
  return {
    load: { median: median(ms), spread: spread(ms), n: ms.length, ...extremes(ms) },
    cpu: { median: median(cpu), spread: spread(cpu), n: cpu.length, ...extremes(cpu) },
    retainedHeap: median(runs.load.map((r) => r.heapAfter - r.heapBefore)),
    peakRss: median(runs.load.map((r) => r.rssGrowth)) - median(runs.empty.map((r) => r.rssGrowth)),
  }
}
