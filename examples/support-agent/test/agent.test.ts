import { expect, it } from '@agent-tape/vitest'
import { createClient, runSupportAgent } from '../src/agent.js'
import { listPayments, lookupInvoice, refund } from '../src/billing.js'
import { TASKS } from './tasks.js'

it.tape('issue-412', async ({ tape }) => {
  const tools = tape.tools({
    lookup_invoice: lookupInvoice,
    list_payments: listPayments,
    refund: {
      run: refund,
      effect: 'irreversible',
      stub: async ({ paymentId }: { paymentId: string; amount: number }) => ({ refundId: `re_${paymentId}` }),
    },
  })
  const result = await runSupportAgent(TASKS['issue-412']!, createClient(), tools)

  const refunds = result.actions.filter((a) => a.tool === 'refund')
  expect(refunds).toEqual([{ tool: 'refund', args: { paymentId: 'pay_2', amount: 4200 } }])
  expect(result.answer).toMatch(/refunded/i)
})
