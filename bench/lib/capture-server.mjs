/**
 * The server of the capture benchmark: Express, one route whose handler runs a 6-step agent on
 * the openai SDK against the loopback fake provider, every 100th run failing. The variant says
 * what wraps the handler: nothing, or a capture (sample 0; sample 0.1 or 1 keeping failed runs;
 * sample 1 keeping every run).
 *
 *   node capture-server.mjs <none|context|sample-0|sample-0.1|sample-1|keep-all> <provider url> <capture dir>
 *
 * `context` runs each request in an AsyncLocalStorage context of its own and nothing else: what
 * any way of telling concurrent runs apart costs, the floor under capture's cost.
 *
 * Prints `port <n>` once it listens; `stats` on stdin prints the capture's stats as JSON, `cpu`
 * the CPU time and runs so far and the largest resident set size since the last `cpu`.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { createCapture } from '@agent-tape/capture'
import express from 'express'
import OpenAI from 'openai'

const [variant, providerUrl, dir] = process.argv.slice(2)
const capture =
  variant === 'none' || variant === 'context'
    ? undefined
    : createCapture({
        dir,
        sample: { 'sample-0': 0, 'sample-0.1': 0.1 }[variant] ?? 1,
        keep: variant === 'keep-all' ? 'all' : 'failed',
        modelEndpoints: [`${providerUrl}/v1`],
        maxFiles: 100_000,
      })
const client = new OpenAI({ apiKey: 'sk-bench-dummy-key', baseURL: `${providerUrl}/v1`, maxRetries: 0 })

const TOOLS = ['lookup_invoice', 'list_payments', 'lookup_customer', 'check_policy', 'draft_reply'].map(
  (name) => ({
    type: 'function',
    function: { name, parameters: { type: 'object', properties: { id: { type: 'string' } } } },
  }),
)
const tool = (name, args) => `${name}(${args.id}): ok, 42.00 EUR, 2 payments, policy allows one refund`

/** Five tool turns, then a streamed answer: six model requests. */
async function runAgent(input) {
  const messages = [
    {
      role: 'system',
      content: 'You are the billing support agent of Acme. Investigate, then answer in one sentence.',
    },
    { role: 'user', content: input.ticket },
  ]
  for (let step = 1; step <= 5; step++) {
    const response = await client.chat.completions.create({ model: 'gpt-4o', messages, tools: TOOLS })
    const message = response.choices[0].message
    messages.push(message)
    for (const call of message.tool_calls ?? []) {
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: tool(call.function.name, JSON.parse(call.function.arguments)),
      })
    }
  }
  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages, stream: true })
  let answer = ''
  for await (const chunk of stream) answer += chunk.choices[0]?.delta?.content ?? ''
  if (input.fail) throw new Error(`refund refused for ${input.ticket.slice(0, 12)}`)
  return { answer, steps: 6 }
}

let runs = 0
const handler = async (req, res) => {
  const input = { ticket: req.body.ticket, fail: ++runs % 100 === 0 }
  res.json(await runAgent(input))
}
const app = express()
app.use(express.json())
const context = new AsyncLocalStorage()
const inContext = (req, res) => context.run({ req }, () => handler(req, res))
app.post(
  '/triage',
  capture
    ? capture.handler('triage', handler, { input: (req) => req.body })
    : variant === 'context'
      ? inContext
      : handler,
)
app.use((error, _req, res, _next) => res.status(500).json({ error: error.message }))
// As docs/capture.md says: a server waits for the boundary before it takes requests.
await capture?.ready()
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`port ${server.address().port}\n`))
server.keepAliveTimeout = 60_000

// The resident set size, sampled while runs are served: its peak between two `cpu` questions.
let peakRss = 0
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
}, 50).unref()

process.stdin.setEncoding('utf8')
process.stdin.on('data', async (line) => {
  const command = line.trim()
  if (command === 'stats') {
    await capture?.flush()
    process.stdout.write(`stats ${JSON.stringify(capture?.stats() ?? null)}\n`)
  } else if (command === 'cpu') {
    // The process's CPU time so far (user + system, ms), the runs it served, its peak memory.
    const { user, system } = process.cpuUsage()
    const rss = Math.max(peakRss, process.memoryUsage.rss())
    peakRss = 0
    process.stdout.write(`cpu ${JSON.stringify({ ms: (user + system) / 1000, runs, rss })}\n`)
  }
})
