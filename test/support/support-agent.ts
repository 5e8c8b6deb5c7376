import type { Tape } from '@agent-tape/core'

/**
 * The article's scripted support agent: a fake model that works through a refund case by
 * calling eight tools, one per turn, then answers. 9 model requests + 8 tool calls = 17
 * decisions. The agent loop is the "harness" whose changes the tests replay against.
 */
export interface Message {
  role: 'user' | 'assistant' | 'tool'
  content: string
  tool?: string
  args?: unknown
}

export interface ModelDecision {
  content: string
  tool: string | null
  args?: Record<string, unknown>
}

export const TASK =
  'Customer Ada Lovelace asks for a refund of invoice INV-412: she was charged twice for the same order.'

const PLAN: { tool: string; args: Record<string, unknown>; say: string }[] = [
  { tool: 'lookup_invoice', args: { invoiceId: 'INV-412' }, say: 'Let me look up the invoice.' },
  { tool: 'get_customer', args: { customerId: 'cus_ada' }, say: 'Checking the customer.' },
  { tool: 'list_payments', args: { invoiceId: 'INV-412' }, say: 'Listing payments.' },
  { tool: 'check_policy', args: { reason: 'duplicate_charge' }, say: 'Checking the refund policy.' },
  {
    tool: 'compute_refund',
    args: { invoiceId: 'INV-412', paymentId: 'pay_2' },
    say: 'Computing the refund.',
  },
  { tool: 'refund', args: { paymentId: 'pay_2', amount: 4200 }, say: 'Refunding the duplicate payment.' },
  {
    tool: 'send_email',
    args: { to: 'ada@example.com', template: 'refund_done' },
    say: 'Notifying the customer.',
  },
  { tool: 'add_note', args: { invoiceId: 'INV-412', note: 'duplicate refunded' }, say: 'Leaving a note.' },
]

/** A deterministic "model": its answer depends only on how many tool results it has seen. */
export function createScriptedModel() {
  let calls = 0
  const model = async (messages: readonly Message[]): Promise<ModelDecision> => {
    calls++
    const seen = messages.filter((m) => m.role === 'tool').length
    const next = PLAN[seen]
    if (next) return { content: next.say, tool: next.tool, args: next.args }
    return { content: 'Done: the duplicate charge on INV-412 was refunded (42.00 EUR).', tool: null }
  }
  return { model, calls: () => calls }
}

export const TOOL_SCHEMAS = [
  { name: 'lookup_invoice', description: 'Find an invoice by id', parameters: { invoiceId: 'string' } },
  { name: 'get_customer', description: 'Find a customer by id', parameters: { customerId: 'string' } },
  { name: 'list_payments', description: 'Payments made for an invoice', parameters: { invoiceId: 'string' } },
  { name: 'check_policy', description: 'Refund policy for a reason', parameters: { reason: 'string' } },
  {
    name: 'compute_refund',
    description: 'Amount to refund',
    parameters: { invoiceId: 'string', paymentId: 'string' },
  },
  {
    name: 'refund',
    description: 'Refund a payment (irreversible)',
    parameters: { paymentId: 'string', amount: 'number' },
  },
  { name: 'send_email', description: 'Email the customer', parameters: { to: 'string', template: 'string' } },
  {
    name: 'add_note',
    description: 'Add a note to the invoice',
    parameters: { invoiceId: 'string', note: 'string' },
  },
]

export function createToolImplementations() {
  const realCalls: string[] = []
  const tools = {
    lookup_invoice: async (a: { invoiceId: string }) => ({
      id: a.invoiceId,
      customerId: 'cus_ada',
      total: 4200,
    }),
    get_customer: async (a: { customerId: string }) => ({ id: a.customerId, name: 'Ada Lovelace' }),
    list_payments: async (_a: { invoiceId: string }) => [
      { id: 'pay_1', amount: 4200 },
      { id: 'pay_2', amount: 4200 },
    ],
    check_policy: async (_a: { reason: string }) => ({ refundable: true, maxDays: 30 }),
    compute_refund: async (a: { invoiceId: string; paymentId: string; currency?: string }) => ({
      amount: 4200,
      currency: a.currency ?? 'EUR',
    }),
    refund: async (_a: { paymentId: string; amount: number }) => {
      realCalls.push('refund')
      throw new Error('the real refund must never run from a test')
    },
    fakeRefund: async (a: { paymentId: string; amount: number }) => ({
      refundId: `re_${a.paymentId}`,
      status: 'succeeded',
    }),
    send_email: async (_a: { to: string; template: string }) => {
      realCalls.push('send_email')
      throw new Error('the real email must never be sent from a test')
    },
    fakeSendEmail: async (_a: { to: string; template: string }) => ({ queued: true }),
    add_note: async (_a: { invoiceId: string; note: string }) => ({ ok: true }),
  }
  return { tools, realCalls }
}

export interface RunOptions {
  task?: string
  schemas?: typeof TOOL_SCHEMAS
  formatResult?: (result: unknown) => string
  adjustArgs?: (tool: string, args: Record<string, unknown>) => Record<string, unknown>
  implementations?: ReturnType<typeof createToolImplementations>
}

/** The agent loop (the harness): model → tool → model … until the model answers. */
export async function runSupportAgent(
  tape: Tape,
  model: (messages: readonly Message[]) => Promise<ModelDecision>,
  options: RunOptions = {},
): Promise<string> {
  const { tools: impl } = options.implementations ?? createToolImplementations()
  const tools = tape.tools({
    lookup_invoice: impl.lookup_invoice,
    get_customer: impl.get_customer,
    list_payments: impl.list_payments,
    check_policy: impl.check_policy,
    compute_refund: impl.compute_refund,
    refund: { run: impl.refund, effect: 'irreversible', stub: impl.fakeRefund },
    send_email: { run: impl.send_email, effect: 'irreversible', stub: impl.fakeSendEmail },
    add_note: { run: impl.add_note, effect: 'write' },
  })
  const format = options.formatResult ?? ((r: unknown) => JSON.stringify(r))
  const schemas = options.schemas ?? TOOL_SCHEMAS
  const messages: Message[] = [{ role: 'user', content: options.task ?? TASK }]
  for (let turn = 0; turn < 12; turn++) {
    const sorted = [...schemas].sort((a, b) => a.name.localeCompare(b.name))
    const decision = await tape.call('llm', { messages, tools: sorted }, () => model(messages))
    if (decision.tool === null) return decision.content
    const args = options.adjustArgs?.(decision.tool, decision.args ?? {}) ?? decision.args ?? {}
    const tool = (tools as unknown as Record<string, (a: unknown) => Promise<unknown>>)[decision.tool]
    if (!tool) throw new Error(`unknown tool ${decision.tool}`)
    const result = await tool(args)
    messages.push({ role: 'assistant', content: decision.content, tool: decision.tool, args })
    messages.push({ role: 'tool', tool: decision.tool, content: format(result) })
  }
  throw new Error('step budget exhausted')
}
