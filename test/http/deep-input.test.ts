import { createMemoryStore } from '@agent-tape/core'
import { installHttpBoundary } from '@agent-tape/http'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { runTaped } from '../support/tape-run.js'

const boundary = installHttpBoundary()
let server: CountingServer

beforeAll(async () => {
  server = await startCountingServer('model')
  boundary.addModelEndpoints(server.origin)
})
afterAll(() => server.close())

it('fails a request whose body is nested 10,000 levels deep with an agent-tape error, and sends nothing', async () => {
  const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`
  const body = `{"model":"gpt-4o","messages":[{"role":"user","content":${deep}}]}`
  for (const mode of ['auto', 'replay'] as const) {
    const store = createMemoryStore(
      mode === 'replay' ? { 'deep.jsonl': '{"agentTape":1,"keyScheme":1,"test":"t","recordedAt":""}\n' } : {},
    )
    const run = await runTaped(store, 'deep.jsonl', mode, () =>
      fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
    )
    expect(String((run.error as Error)?.cause ?? run.error)).toContain(
      'nested deeper than agent-tape can walk',
    )
    expect(run.failure?.message).toMatch(
      /^\[agent-tape\] Cannot key a decision of kind "llm": its input is nested deeper/,
    )
  }
  expect(server.connections).toBe(0)
})
