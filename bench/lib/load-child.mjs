// Loads one recording for replay in a fresh process, the way its tool does, and prints time and
// memory as JSON:   node --expose-gc load-child.mjs <tool> <load|empty> <path> <expected>
//   agent-tape  openTape in replay mode (read, parse, validate, index the decisions)
//   polly       Polly's fs persister finding the recording (it reads the HAR and JSON.parses it)
//   nock        nock back in lockdown mode loading the fixture (JSON.parse, one interceptor a request)
// `empty` does everything but the load (the tool imported and set up), to subtract the runtime's
// and the tool's own memory. `expected` is how many decisions (agent-tape) or requests (the others)
// the recording holds; a load that finds another number fails.
import { basename, dirname } from 'node:path'

const [tool, what, path, expected] = process.argv.slice(2)
const loaders = {
  async 'agent-tape'() {
    const { openTape } = await import('@agent-tape/core')
    const { createFileStore } = await import('@agent-tape/core/node')
    const store = createFileStore()
    return async () => {
      const tape = await openTape({ id: 'load', cassettePath: path, store, mode: 'replay', env: {} })
      return { kept: tape, count: tape.state.inCassette }
    }
  },
  async polly() {
    const { Polly } = await import('@pollyjs/core')
    const { default: FetchAdapter } = await import('@pollyjs/adapter-fetch')
    const { default: FSPersister } = await import('@pollyjs/persister-fs')
    Polly.register(FetchAdapter)
    Polly.register(FSPersister)
    const polly = new Polly('load', {
      adapters: ['fetch'],
      persister: 'fs',
      persisterOptions: { fs: { recordingsDir: dirname(dirname(path)) } },
      mode: 'replay',
      logLevel: 'silent',
    })
    return async () => {
      const har = await polly.persister.findRecording(basename(dirname(path)))
      return { kept: polly, count: har?.log.entries.length ?? 0 }
    }
  },
  async nock() {
    const { default: nock } = await import('nock')
    nock.back.fixtures = dirname(path)
    nock.back.setMode('lockdown')
    return async () => {
      const { context } = await nock.back(basename(path))
      return { kept: context, count: context.scopes.length }
    }
  },
}
if (!loaders[tool]) throw new Error(`load-child: unknown tool "${tool}"; use one of ${Object.keys(loaders)}`)
const load = await loaders[tool]()

globalThis.gc()
const { heapUsed: heapBefore, rss: rssBefore } = process.memoryUsage()
let rssPeak = rssBefore
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
}, 1)
const cpuBefore = process.cpuUsage()
const started = performance.now()
const loaded = what === 'load' ? await load() : undefined
const ms = performance.now() - started
const cpu = process.cpuUsage(cpuBefore)
clearInterval(sampler)
rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
globalThis.gc()
const heapAfter = process.memoryUsage().heapUsed
if (loaded && loaded.count !== Number(expected)) {
  throw new Error(
    `load-child: ${tool} loaded ${loaded.count} entries from ${path}, expected ${expected}: the recording did not load whole`,
  )
}
// CPU time (user + system, every thread) as well as wall time: on a shared machine a process
// that waits for a core has its wall time grow, not its CPU time.
const cpuMs = (cpu.user + cpu.system) / 1000
process.stdout.write(JSON.stringify({ ms, cpuMs, heapBefore, heapAfter, rssGrowth: rssPeak - rssBefore }))
process.exit(0)
