// Loads one cassette for replay in a fresh process and prints time and memory as JSON.
// `empty` does everything but the load, to subtract the runtime's own memory.
import { openTape } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'

const [what, path] = process.argv.slice(2)
const store = createFileStore()
globalThis.gc()
const { heapUsed: heapBefore, rss: rssBefore } = process.memoryUsage()
let rssPeak = rssBefore
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
}, 1)
const started = performance.now()
let tape
if (what === 'load') tape = await openTape({ id: 'load', cassettePath: path, store, mode: 'replay', env: {} })
const ms = performance.now() - started
clearInterval(sampler)
rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
globalThis.gc()
const heapAfter = process.memoryUsage().heapUsed
if (what === 'load' && tape.state.inCassette !== 10_000) throw new Error('the cassette did not load whole')
process.stdout.write(JSON.stringify({ ms, heapBefore, heapAfter, rssGrowth: rssPeak - rssBefore }))
