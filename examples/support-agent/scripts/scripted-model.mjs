// A scripted stand-in for the model, served over the OpenAI wire format by
// @agent-tape/fake-provider. It behaves like the model did in the issue-412 incident: unless the
// system prompt says to refund only the duplicate payment, it refunds the first payment it sees
// for the whole invoice amount twice over.

export const SEED = 'support-agent'

/** Where the agent finds the scripted model while recording. */
export function environment(provider) {
  return { OPENAI_BASE_URL: provider.openaiBaseURL }
}

/** Decides the next turn from the conversation so far (the same input always gets the same answer). */
export function reply(body) {
  const messages = body.messages ?? []
  const system = messages.find((m) => m.role === 'system')?.content ?? ''
  const careful = /only the duplicate/i.test(system)
  const results = messages.filter((m) => m.role === 'tool').length
  const usage = { inputTokens: 180 + 60 * results, outputTokens: 18 }
  if (results === 0) return { toolCalls: [{ name: 'lookup_invoice', args: { invoiceId: 'INV-412' } }], usage }
  if (results === 1) return { toolCalls: [{ name: 'list_payments', args: { invoiceId: 'INV-412' } }], usage }
  if (results === 2) {
    const args = careful ? { paymentId: 'pay_2', amount: 4200 } : { paymentId: 'pay_1', amount: 8400 }
    return { toolCalls: [{ name: 'refund', args }], usage }
  }
  const text = careful
    ? 'I refunded the duplicate charge of 42.00 EUR (payment pay_2); you will see it within 5 days.'
    : 'I refunded 84.00 EUR for invoice INV-412; you will see it within 5 days.'
  return { text: text.split(/(?<= )/), usage }
}
