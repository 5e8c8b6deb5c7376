/**
 * The fake provider of the capture benchmark, in a process of its own so that its work is not
 * counted in the server's: five tool calls (one per turn, by how many tool results it has seen),
 * then an answer. Prints `url <url>` once it listens.
 */
import { startFakeProvider } from '@agent-tape/fake-provider'

const TOOLS = ['lookup_invoice', 'list_payments', 'lookup_customer', 'check_policy', 'draft_reply']
const provider = await startFakeProvider({
  seed: 'capture-bench',
  reply: ({ body }) => {
    const seen = (body.messages ?? []).filter((m) => m.role === 'tool').length
    if (seen < TOOLS.length) return { toolCalls: [{ name: TOOLS[seen], args: { id: 'INV-412' } }] }
    return {
      text: ['The duplicate charge of 42.00 EUR', ' on INV-412 is refunded.'],
      usage: { inputTokens: 900, outputTokens: 14 },
    }
  },
})
process.stdout.write(`url ${provider.url}\n`)
process.stdin.setEncoding('utf8')
process.stdin.on('data', (line) => {
  if (line.trim() === 'connections')
    process.stdout.write(`connections ${provider.connections} ${provider.requests.length}\n`)
})
