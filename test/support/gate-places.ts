import { runWithTape, type Tape, tapeMcpTransport } from '@agent-tape/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { type GateItem, textOf } from './gate-items.js'
import { type Surface, throughTape } from './gate-tape.js'
import { PLACES, thirds } from './secret-places.js'

/** A model's answer, as the HTTP boundary records one. */
function answer(tape: Tape, api: string, out: unknown): void {
  const begun = tape.begin('llm', { api, body: { model: 'm', messages: [] } })
  if (begun.action !== 'record') throw new Error('expected a recording tape')
  begun.complete({ out }, 5)
}

const sse = (events: unknown[]) => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: { sse: events },
})

/** The value as a model's tool-call arguments: a JSON text, as the wire carries them. */
const argsText = (item: GateItem) => {
  const text = textOf(item)
  return typeof item.form.value === 'string' && !text.trimStart().startsWith('{')
    ? JSON.stringify({ v: text })
    : text
}

/** The value as an arguments object, for providers that send arguments as JSON values. */
const argsObject = (item: GateItem) => {
  if (typeof item.form.value !== 'string') return item.form.value
  try {
    return JSON.parse(item.form.value)
  } catch {
    return { v: item.form.value }
  }
}

type TapePlace = [
  name: string,
  secret: 'redacted' | 'refused',
  (tape: Tape, item: GateItem) => Promise<unknown>,
]

/** Stream shapes beyond the ones every form is tried in (secret-places.ts). */
const MORE_STREAMS: TapePlace[] = [
  [
    'streamed text (openai responses)',
    'refused',
    async (tape, item) =>
      answer(
        tape,
        'openai-responses',
        sse(
          thirds(textOf(item)).map((delta, t) => ({
            t,
            event: 'response.output_text.delta',
            json: {
              type: 'response.output_text.delta',
              item_id: 'msg_1',
              output_index: 0,
              content_index: 0,
              delta,
            },
          })),
        ),
      ),
  ],
  [
    'streamed function-call arguments (openai responses)',
    'refused',
    async (tape, item) =>
      answer(
        tape,
        'openai-responses',
        sse(
          thirds(argsText(item)).map((delta, t) => ({
            t,
            event: 'response.function_call_arguments.delta',
            json: { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta },
          })),
        ),
      ),
  ],
  [
    'streamed text (gemini)',
    'refused',
    async (tape, item) =>
      answer(
        tape,
        'gemini',
        sse(
          thirds(textOf(item)).map((text, t) => ({
            t,
            json: { candidates: [{ content: { role: 'model', parts: [{ text }] } }], responseId: 'r1' },
          })),
        ),
      ),
  ],
  [
    'streamed function call (gemini)',
    'refused',
    async (tape, item) =>
      answer(
        tape,
        'gemini',
        sse([
          { t: 0, json: { candidates: [{ content: { role: 'model', parts: [{ text: 'Saving.' }] } }] } },
          {
            t: 1,
            json: {
              candidates: [
                {
                  content: {
                    role: 'model',
                    parts: [{ functionCall: { name: 'save', args: argsObject(item) } }],
                  },
                },
              ],
            },
          },
        ]),
      ),
  ],
]

/** An MCP tool call through the MCP SDK's client and server: `read` returns the value, `save` takes it. */
async function callMcp(tape: Tape, item: GateItem, send: boolean): Promise<void> {
  const server = new McpServer({ name: 'config', version: '1.0.0' })
  server.registerTool('read', { inputSchema: { what: z.string() } }, () => ({
    content: [{ type: 'text', text: textOf(item) }],
  }))
  server.registerTool('save', { inputSchema: { note: z.string() } }, () => ({
    content: [{ type: 'text', text: 'saved' }],
  }))
  const [client, served] = InMemoryTransport.createLinkedPair()
  await server.connect(served)
  const agent = new Client({ name: 'agent', version: '1.0.0' })
  await runWithTape(tape, async () => {
    await agent.connect(tapeMcpTransport(client, { server: 'config' }))
    await agent.callTool(
      send
        ? { name: 'save', arguments: { note: textOf(item) } }
        : { name: 'read', arguments: { what: 'all' } },
    )
    await agent.close()
  })
}

const MCP: TapePlace[] = [
  ['an MCP tool result', 'refused', (tape, item) => callMcp(tape, item, false)],
  ['MCP tool arguments', 'redacted', (tape, item) => callMcp(tape, item, true)],
]

/** Every place of a tape: what goes in is written redacted, what comes back refuses the write. */
export const TAPE_SURFACES: Surface[] = [
  ...PLACES.map(
    (p): TapePlace => [
      p.name,
      p.side === 'in' ? 'redacted' : 'refused',
      (tape, item) => p.run(tape, item.form),
    ],
  ),
  ...MORE_STREAMS,
  ...MCP,
].map(([name, secret, place]) => ({
  name,
  secret,
  run: (items, env) => throughTape(items, env, place),
}))
