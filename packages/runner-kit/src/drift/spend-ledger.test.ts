import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Cassette, DecisionRecord } from '@agent-tape/core/internal'
import { afterEach, describe, expect, it } from 'vitest'
import { createSpendGate, readLedger } from './spend-ledger.js'

const ask = (id: string, tokens: number, usd?: number, test = 't') =>
  JSON.stringify({ t: 'ask', id, test, est: { tokens, usd } })
const spent = (id: string, tokens: number, usd?: number) =>
  JSON.stringify({ t: 'spent', id, spent: { tokens, usd } })

describe('readLedger', () => {
  it('lets requests through in the order they were appended while they fit, and none after the first refusal', () => {
    const text = [ask('a', 40), ask('b', 40), ask('c', 40), ask('d', 10)].join('\n')
    const state = readLedger(text, { tokens: 100 })
    expect([...state.verdicts]).toEqual([
      ['a', true],
      ['b', true],
      ['c', false],
      // It would fit, but the run stopped sending at c.
      ['d', false],
    ])
    expect(state).toMatchObject({ sent: 2, spent: { tokens: 80 }, refused: [{ id: 'c' }, { id: 'd' }] })
  })

  it('counts what a request spent in place of its estimate, from where the spending is noted', () => {
    const text = [ask('a', 60), spent('a', 20), ask('b', 60), ask('c', 30)].join('\n')
    const state = readLedger(text, { tokens: 100 })
    expect(state.verdicts.get('b')).toBe(true)
    expect(state.verdicts.get('c')).toBe(false)
    expect(state.spent.tokens).toBe(80)
  })

  it('refuses a request with no price under a budget in dollars, and ignores a line cut short', () => {
    const text = `${ask('a', 10, 0.01)}\n${ask('b', 10)}\n{"t":"ask","id":"c`
    const state = readLedger(text, { usd: 1 })
    expect([...state.verdicts]).toEqual([
      ['a', true],
      ['b', false],
    ])
    expect(state.spent.usd).toBeCloseTo(0.01)
  })

  it('lets everything through without a budget, still counting it', () => {
    const state = readLedger([ask('a', 500), spent('a', 400)].join('\n'), {})
    expect(state).toMatchObject({ sent: 1, spent: { tokens: 400 }, refused: [] })
  })
})

describe('createSpendGate', () => {
  let dir: string | undefined
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const model = (seq: number, step: number, input: number, output: number): DecisionRecord => ({
    seq,
    key: `llm:${String(seq).padStart(16, '0')}` as DecisionRecord['key'],
    kind: 'llm',
    step,
    ms: 1,
    in: { api: 'openai-chat', method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini' } },
    out: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { json: { model: 'gpt-4o-mini', usage: { prompt_tokens: input, completion_tokens: output } } },
    },
  })

  it('estimates a request by the committed decision with its key, else at its step, and refuses what does not fit', () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-tape-ledger-'))
    const ledger = join(dir, 'spend.jsonl')
    const committed = {
      header: {},
      decisions: [model(1, 1, 30, 10), model(2, 2, 50, 20)],
    } as unknown as Cassette
    const gate = createSpendGate(ledger, { tokens: 100 }, 'test/a.test.ts > a')
    const first = gate({ kind: 'llm', asksModel: true, key: committed.decisions[0]!.key, step: 1, committed })
    expect(first).not.toHaveProperty('refused')
    // Another key at step 2: the committed request at step 2 (70 tokens) does not fit beside 40.
    const second = gate({ kind: 'llm', asksModel: true, key: 'llm:ffffffffffffffff', step: 2, committed })
    expect('refused' in second && second.refused.message).toBe(
      `[agent-tape] Not sent: the model request at step 2 of "test/a.test.ts > a" is over the drift run's budget of 100 tokens: 40 tokens were spent or held, and this request is estimated at 70 more from its committed recording. Raise --budget-usd or --budget-tokens, or run drift on fewer tests (agent-tape drift <test file>).`,
    )
    expect(
      gate({ kind: 'tool', asksModel: false, key: 'tool:0000000000000001', step: 2, committed }),
    ).toEqual({})
    expect(readFileSync(ledger, 'utf8').trim().split('\n')).toHaveLength(2)
  })
})
