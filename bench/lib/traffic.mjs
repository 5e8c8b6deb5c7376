/** Request bodies and model scripts shared by every contender. */

const FILLER = 'The customer writes about invoice INV-412, charged twice on 2 May; we check the ledger. '

/** An OpenAI chat body of about `bytes` bytes of messages; `variant` makes its first message unique. */
export function chatBody(bytes, variant) {
  const messages = [{ role: 'system', content: `You are support agent #${variant}. Be brief.` }]
  let turn = 0
  while (JSON.stringify(messages).length < bytes) {
    turn++
    messages.push({ role: 'user', content: `Turn ${turn}: ${FILLER.repeat(8)}` })
    messages.push({ role: 'assistant', content: `Noted (${turn}). ${FILLER.repeat(4)}` })
  }
  return { model: 'gpt-4o-mini', messages, temperature: 0 }
}

/** Posts each chat body to `url` in turn, as the OpenAI SDK would, and checks each answer is a completion. */
export async function postChatBodies(url, bodies) {
  for (const body of bodies) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify(body),
    })
    const json = await response.json()
    if (!json.choices) throw new Error(`unexpected answer: ${JSON.stringify(json).slice(0, 300)}`)
  }
}

export const LOOKUP_TOOL = {
  type: 'function',
  function: {
    name: 'lookup',
    description: 'Looks a record up by number',
    parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  },
}

/** The fake model of the long run: one tool call per step until `steps`, then an answer. */
export function longRunScript(steps) {
  return (request) => {
    const seen = (request.body.messages ?? []).filter((m) => m.role === 'tool').length
    if (seen + 1 < steps) return { toolCalls: [{ name: 'lookup', args: { n: seen + 1 } }] }
    return { text: `Looked up ${seen} records.`, usage: { inputTokens: 1000, outputTokens: 8 } }
  }
}

/** What the lookup tool returns: about 900 bytes, so the history grows by about 1 KB a step. */
export function lookup(n) {
  return `Record ${n}: ${FILLER.repeat(10)}`
}

export const LONG_RUN_SYSTEM = 'You look records up one by one and then summarize.'

/**
 * The agent loop of the long run, on the openai SDK. Returns the final text and per-step times.
 * `system` replaces the system prompt (the re-record scenario edits one word of it).
 */
export async function runLongAgent(client, tools, steps, { system = LONG_RUN_SYSTEM } = {}) {
  const messages = [
    { role: 'system', content: system },
    { role: 'user', content: `Look up records 1 to ${steps - 1}.` },
  ]
  const stepMs = []
  for (let step = 0; step < steps + 5; step++) {
    const started = performance.now()
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages,
      tools: [LOOKUP_TOOL],
    })
    stepMs.push(performance.now() - started)
    const message = completion.choices[0].message
    messages.push(message)
    if (!message.tool_calls?.length) return { text: message.content, stepMs }
    for (const call of message.tool_calls) {
      const args = JSON.parse(call.function.arguments)
      const content = await tools.call('lookup', [args], () => lookup(args.n))
      messages.push({ role: 'tool', tool_call_id: call.id, content })
    }
  }
  throw new Error('the long run did not end')
}
