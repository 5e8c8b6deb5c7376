import {
  type CassetteStore,
  createMemoryStore,
  isReplayMiss,
  openTape,
  parseCassette,
} from '@agent-tape/core'
import { beforeAll, expect, it } from 'vitest'
import {
  createScriptedModel,
  createToolImplementations,
  type RunOptions,
  runSupportAgent,
  TASK,
  TOOL_SCHEMAS,
} from './support/support-agent.js'

const CASSETTE = 'test/__cassettes__/agent.test.ts/issue-412.jsonl'
const RERECORD = 'AGENT_TAPE_MODE=update npx vitest run test/agent.test.ts -t "issue-412"'
const env = { PATH: '/usr/bin' }

let store: CassetteStore & { files: Record<string, string> }

function open(mode: 'auto' | 'replay' | 'update') {
  return openTape({
    id: 'agent.test.ts > issue-412',
    cassettePath: CASSETTE,
    store,
    mode,
    env,
    rerecordCommand: RERECORD,
  })
}

/** Replays the recorded run with a changed harness and returns the miss it must produce. */
async function replayExpectingMiss(options: RunOptions) {
  const tape = await open('replay')
  const { model, calls } = createScriptedModel()
  const error = await runSupportAgent(tape, model, options).then(
    () => undefined,
    (e: unknown) => e,
  )
  await tape.finish()
  expect(calls()).toBe(0)
  expect(isReplayMiss(error)).toBe(true)
  expect(tape.failure()).toBe(error)
  return (error as Error).message
}

beforeAll(async () => {
  store = createMemoryStore()
  const tape = await open('auto')
  const { model, calls } = createScriptedModel()
  const implementations = createToolImplementations()
  const answer = await runSupportAgent(tape, model, { implementations })
  const state = await tape.finish()
  expect(answer).toMatch(/refunded/)
  expect(calls()).toBe(9)
  expect(implementations.realCalls).toEqual([])
  expect(state).toMatchObject({ action: 'record', status: 'recorded', recorded: 17, written: true })
})

it('records the 17 decisions of the run in order, one line each after the header', () => {
  const text = store.files[CASSETTE]!
  expect(text.trimEnd().split('\n')).toHaveLength(18)
  const { header, decisions } = parseCassette(text, CASSETTE)
  expect(header).toMatchObject({ agentTape: 2, keyScheme: 1, test: 'agent.test.ts > issue-412' })
  expect(decisions.map((d) => `${d.kind}@${d.step}`)).toEqual([
    'llm@1',
    'tool@1',
    'llm@2',
    'tool@2',
    'llm@3',
    'tool@3',
    'llm@4',
    'tool@4',
    'llm@5',
    'tool@5',
    'llm@6',
    'tool@6',
    'llm@7',
    'tool@7',
    'llm@8',
    'tool@8',
    'llm@9',
  ])
  expect(decisions[11]).toMatchObject({
    kind: 'tool',
    in: { name: 'refund', args: [{ paymentId: 'pay_2', amount: 4200 }] },
    out: { refundId: 're_pay_2', status: 'succeeded' },
  })
})

it('replays the run with zero calls to the model and no tool running', async () => {
  const tape = await open('replay')
  const { model, calls } = createScriptedModel()
  const implementations = createToolImplementations()
  const answer = await runSupportAgent(tape, model, { implementations })
  const state = await tape.finish()
  expect(answer).toBe('Done: the duplicate charge on INV-412 was refunded (42.00 EUR).')
  expect(calls()).toBe(0)
  expect(implementations.realCalls).toEqual([])
  expect(state).toMatchObject({
    action: 'replay',
    status: 'clean',
    inCassette: 17,
    replayed: 17,
    missed: 0,
    unused: 0,
  })
  expect(tape.failure()).toBeUndefined()
})

it('an edited task prompt misses at step 1 and the diff shows the edited words', async () => {
  const message = await replayExpectingMiss({ task: TASK.replace('charged twice', 'billed twice') })
  expect(
    message,
  ).toBe(`[agent-tape] Replay miss at step 1, model request: the run asked for a decision that was never recorded. If the change is intended, re-record this test: ${RERECORD}.

  cassette  ${CASSETTE}
  key       llm:b492bce986a4d0f7
  progress  diverged at decision 1 of 17 (0 replayed before it)
  nearest   #1 llm:d54fd02a080c435f, model request at step 1

  Input changed (recorded → now):
    messages[0].content: "…INV-412: she was charged twice for the same…" → "…INV-412: she was billed twice for the same…"`)
})

it('a change in how the loop formats the first tool result misses at step 2', async () => {
  const message = await replayExpectingMiss({ formatResult: (r) => JSON.stringify(r, null, 1) })
  expect(
    message,
  ).toBe(`[agent-tape] Replay miss at step 2, model request: the run asked for a decision that was never recorded. If the change is intended, re-record this test: ${RERECORD}.

  cassette  ${CASSETTE}
  key       llm:3bd21caac0f8d09c
  progress  diverged at decision 3 of 17 (2 replayed before it)
  nearest   #3 llm:55b31de47522091a, model request at step 2

  Input changed (recorded → now):
    messages[2].content: "{\\"id\\":\\"INV-412\\",\\"customerId\\":\\"cus_ada\\",\\"total\\":4200}" → "{\\n \\"id\\": \\"INV-412\\",\\n \\"customerId\\": \\"cus_ada\\",\\n \\"total\\": 4200\\n}"`)
})

it('a changed tool schema misses at step 1 on the llm key', async () => {
  const schemas = TOOL_SCHEMAS.map((s) =>
    s.name === 'refund' ? { ...s, description: 'Refund a payment, fully or in part (irreversible)' } : s,
  )
  const message = await replayExpectingMiss({ schemas })
  expect(
    message,
  ).toBe(`[agent-tape] Replay miss at step 1, model request: the run asked for a decision that was never recorded. If the change is intended, re-record this test: ${RERECORD}.

  cassette  ${CASSETTE}
  key       llm:04f998a3104e9aa6
  progress  diverged at decision 1 of 17 (0 replayed before it)
  nearest   #1 llm:d54fd02a080c435f, model request at step 1

  Input changed (recorded → now):
    tools[6].description: "Refund a payment (irreversible)" → "Refund a payment, fully or in part (irreversible)"`)
})

it('a changed tool argument misses at that tool call, at its step', async () => {
  const message = await replayExpectingMiss({
    adjustArgs: (tool, args) => (tool === 'compute_refund' ? { ...args, currency: 'USD' } : args),
  })
  expect(
    message,
  ).toBe(`[agent-tape] Replay miss at step 5, tool "compute_refund": the run asked for a decision that was never recorded. If the change is intended, re-record this test: ${RERECORD}.

  cassette  ${CASSETTE}
  key       tool:d9ba48ad89fde330
  progress  diverged at decision 10 of 17 (9 replayed before it)
  nearest   #10 tool:57f4b227f30f48a3, tool "compute_refund" at step 5

  Input changed (recorded → now):
    args[0].currency: (absent) → "USD"`)
})
