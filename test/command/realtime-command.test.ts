import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type LiveServer, startLiveServer } from '../support/live-server.js'
import { cli, readCassette } from './support.js'

// A command whose Node process opens a Live session with the `ws` package: `agent-tape record`
// keeps the session in its cassette, `replay` answers it with the server gone.
const WS = join(import.meta.dirname, '../../node_modules/ws/wrapper.mjs')
const AGENT = `import { WebSocket } from ${JSON.stringify(WS)}
const ws = new WebSocket(process.env.LIVE_URL + '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=' + process.env.GEMINI_API_KEY)
ws.on('open', () => ws.send(JSON.stringify({ setup: { model: 'models/gemini-live-2.5-flash' } })))
ws.on('message', (data) => {
  const message = JSON.parse(String(data))
  if (message.setupComplete) ws.send(JSON.stringify({ clientContent: { turns: [{ role: 'user', parts: [{ text: 'Hi' }] }], turnComplete: true } }))
  for (const part of message.serverContent?.modelTurn?.parts ?? []) console.log(part.text)
  if (message.serverContent?.turnComplete) ws.close()
})
ws.on('error', (error) => console.log('error', error.message))
`

let server: LiveServer
const dir = mkdtempSync(join(tmpdir(), 'agent-tape-live-command-'))

beforeAll(async () => {
  server = await startLiveServer()
  writeFileSync(join(dir, 'agent.mjs'), AGENT)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('records the session of a command and replays it with the server gone', async () => {
  const env = {
    LIVE_URL: server.url.replace('http', 'ws'),
    GEMINI_API_KEY: 'AIzaCommandK3yForTests000000000000000',
  }
  const recorded = await cli(
    ['record', '--model-endpoint', server.url, 'live.jsonl', '--', 'node', 'agent.mjs'],
    dir,
    env,
  )
  expect(recorded.stderr).toContain('Recorded 3 decisions of node agent.mjs (exit code 0) in live.jsonl.')
  expect(recorded.output).toBe('Hello.\n')
  expect(
    readCassette(join(dir, 'live.jsonl')).decisions.map((d) => (d.in as { frame: string }).frame),
  ).toEqual(['open', 'setup', 'clientContent'])
  await server.close()
  const replayed = await cli(['replay', 'live.jsonl'], dir, env)
  expect(replayed.stderr).toBe(
    'Replayed live.jsonl cleanly: 3 of 3 decisions from 1 process, no network; the command exited with code 0.\n',
  )
  expect(replayed.output).toBe('Hello.\n')
})
