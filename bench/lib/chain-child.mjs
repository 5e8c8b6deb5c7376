// One operation on a cassette in a fresh process, printing its time and memory as JSON:
//   node --expose-gc chain-child.mjs <operation> <path> <decisions>
//   load     openTape in replay mode: read, parse, validate, index
//   replay   the same, then finish with every decision unused (the summary labels each one)
//   scan     parse, then the secret scan (as `verify` and a write run it)
//   last     parse, then read the input of the last decision (rebuilt from its chain)
//   verify   `agent-tape verify <path>`, the command (its exit code must be 0)
//   empty    the imports and nothing else, to subtract the runtime's own memory
import { readFileSync } from 'node:fs'
import { createCliIo, main } from '@agent-tape/cli'
import { openTape, parseCassette } from '@agent-tape/core'
import { findCassetteSecrets, SecretScanner } from '@agent-tape/core/internal'
import { createFileStore } from '@agent-tape/core/node'

const [operation, path, decisions] = process.argv.slice(2)
const expected = Number(decisions)
const replayTape = () =>
  openTape({ id: 'chain', cassettePath: path, store: createFileStore(), mode: 'replay', env: {} })
const check = (count) => {
  if (count !== expected)
    throw new Error(`chain-child: ${operation} saw ${count} decisions, expected ${expected}`)
}
const operations = {
  async load() {
    const tape = await replayTape()
    check(tape.state.inCassette)
    return tape
  },
  async replay() {
    const tape = await replayTape()
    const state = await tape.finish()
    check(state.unused)
    if (!state.decisions.every((d) => d.label.startsWith('model request')))
      throw new Error('chain-child: a label is missing')
    return tape
  },
  async scan() {
    const cassette = parseCassette(readFileSync(path, 'utf8'), path)
    check(cassette.decisions.length)
    const findings = findCassetteSecrets(cassette, new SecretScanner())
    if (findings.length > 0) throw new Error(`chain-child: the scan found ${findings[0].path}`)
    return cassette
  },
  async last() {
    const cassette = parseCassette(readFileSync(path, 'utf8'), path)
    check(cassette.decisions.length)
    const messages = cassette.decisions.at(-1).in.body.messages
    check(messages.length - 1)
    return cassette
  },
  async verify() {
    let out = ''
    const sink = { write: (text) => (out += text) }
    const code = await main(['verify', path], createCliIo({ stdout: sink, stderr: sink }, {}, process.cwd()))
    if (code !== 0) throw new Error(`chain-child: verify exited ${code}: ${out}`)
  },
  async empty() {},
}
if (!operations[operation]) throw new Error(`chain-child: unknown operation "${operation}"`)

globalThis.gc()
const { heapUsed: heapBefore, rss: rssBefore } = process.memoryUsage()
let rssPeak = rssBefore
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
}, 1)
const started = performance.now()
const kept = await operations[operation]()
const ms = performance.now() - started
clearInterval(sampler)
rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
globalThis.gc()
const heapAfter = process.memoryUsage().heapUsed
void kept
process.stdout.write(
  JSON.stringify({ ms, retainedHeap: heapAfter - heapBefore, rssGrowth: rssPeak - rssBefore }),
)
process.exit(0)
