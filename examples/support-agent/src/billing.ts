/** The billing system the agent works on: an invoice paid twice by mistake. */
export interface Invoice {
  id: string
  customer: string
  total: number
  currency: string
}

export interface Payment {
  id: string
  invoiceId: string
  amount: number
  capturedAt: string
}

const INVOICES: Record<string, Invoice> = {
  'INV-412': { id: 'INV-412', customer: 'Ada Lovelace', total: 4200, currency: 'EUR' },
}

const PAYMENTS: Payment[] = [
  { id: 'pay_1', invoiceId: 'INV-412', amount: 4200, capturedAt: '2026-11-02T09:14:00Z' },
  { id: 'pay_2', invoiceId: 'INV-412', amount: 4200, capturedAt: '2026-11-02T09:14:03Z' },
]

export async function lookupInvoice(args: { invoiceId: string }): Promise<Invoice | { error: string }> {
  return INVOICES[args.invoiceId] ?? { error: `no invoice ${args.invoiceId}` }
}

export async function listPayments(args: { invoiceId: string }): Promise<Payment[]> {
  return PAYMENTS.filter((p) => p.invoiceId === args.invoiceId)
}

/** Moves real money. Never called from a test: the tape runs its stub instead. */
export async function refund(args: { paymentId: string; amount: number }): Promise<{ refundId: string }> {
  throw new Error(`refund(${args.paymentId}, ${args.amount}) would call the payment provider`)
}
