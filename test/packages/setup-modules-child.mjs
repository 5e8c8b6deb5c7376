// Run in a fresh node process by setup-modules.test.ts: does what the Vitest plugin's setup file
// does (it imports what that file imports), makes a request outside any tape, then opens a tape
// and replays a request in it, and prints which of agent-tape's files each step loaded.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire, register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'

const { port1, port2 } = new MessageChannel()
const loaded = []
port1.on('message', (url) => loaded.push(url))
port1.unref()
const hook = `let port
export function initialize(data) { port = data.port }
export async function load(url, context, next) { port.postMessage(url); return next(url, context) }`
register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { port: port2 }, transferList: [port2] })
const settle = () => new Promise((resolve) => setTimeout(resolve, 100))
const steps = {}
const mark = async (name) => {
  await settle()
  steps[name] = loaded.splice(0).filter((url) => url.includes('/packages/') || url.includes('/diff/'))
}

const server = createServer((_request, response) => response.end('from the server'))
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${server.address().port}/v1/chat/completions`

// Exactly what the setup file imports, found from the file itself (its own code needs a Vitest worker).
const setupFile = createRequire(import.meta.url)
  .resolve('@agent-tape/vitest/package.json')
  .replace(/package\.json$/, 'dist/setup.js')
const imports = [
  ...readFileSync(setupFile, 'utf8').matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm),
]
  .map((m) => m[1])
  .filter((specifier) => specifier !== 'vitest')
const entries = {}
for (const specifier of imports) {
  const local = specifier.startsWith('.')
  entries[specifier] = await import(local ? new URL(specifier, `file://${setupFile}`).href : specifier)
}
const { runWithTape, setRunMode } = entries['@agent-tape/core/context']
const { applyReplayKeys, prepareBoundary } = entries['@agent-tape/http/install']
const { loadTapeMatchersWithFirstTape, toHttpOptions } = entries['@agent-tape/runner-kit/setup']
prepareBoundary(
  toHttpOptions({
    modelEndpoints: [{ source: '^http://127\\.0\\.0\\.1', flags: '' }],
    allowHosts: [],
    timing: 'instant',
  }),
)
setRunMode('auto')
applyReplayKeys({}, [{ variables: ['OPENAI_API_KEY'], placeholders: ['OPENAI_API_KEY'] }])
loadTapeMatchersWithFirstTape()
await mark('setup')

const outside = await (await fetch(url, { method: 'POST', body: '{}' })).text()
await mark('outside')

const { createMemoryStore, openTape } = await import('@agent-tape/core')
const store = createMemoryStore()
const call = () =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"m","messages":[]}',
  }).then((r) => r.text())
const recorder = await openTape({
  id: 'c',
  store,
  cassettePath: 'c.jsonl',
  mode: 'update',
  env: {},
  rerecordCommand: 'rerecord',
})
await mark('open')
const recorded = await runWithTape(recorder, call)
await recorder.finish()
const player = await openTape({
  id: 'c',
  store,
  cassettePath: 'c.jsonl',
  mode: 'replay',
  env: {},
  rerecordCommand: 'rerecord',
})
server.close()
const replayed = await runWithTape(player, call)
await player.finish()
await mark('tape')
process.stdout.write(
  JSON.stringify({ imports, outside, recorded, replayed, state: player.state.status, steps }),
)
