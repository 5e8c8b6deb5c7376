import type { Cassette, DecisionRecord } from '@agent-tape/core/internal'
import { describe, expect, it } from 'vitest'
import { renderCompareView, renderRunView } from './render-page.js'
import { EXTEND_KEY, REF_KEY, resolveShared, SharedValues } from './shared-values.js'

/** A seeded generator (mulberry32), so that a failure replays. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const KEYS = ['role', 'content', 'a', '', '__proto__', 'ключ', REF_KEY.repeat(2), 'x'.repeat(60)]

/** A random JSON value: its long strings drawn from a few, so that some repeat. */
function randomValue(next: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!
  const r = next()
  if (depth > 3 || r < 0.3) {
    return pick<unknown>([
      null,
      true,
      false,
      0,
      -1.5,
      Math.floor(next() * 1e6),
      '',
      'short',
      `long ${Math.floor(next() * 3)} ${'y'.repeat(130)}`,
      `unique ${next()} ${'z'.repeat(125)}`,
      '</script>\u2028',
    ])
  }
  if (r < 0.65) return Array.from({ length: Math.floor(next() * 6) }, () => randomValue(next, depth + 1))
  const out: Record<string, unknown> = {}
  for (let i = Math.floor(next() * 5); i > 0; i--) {
    Object.defineProperty(out, pick(KEYS), {
      value: randomValue(next, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

/** Each value shared in turn into one table, then read back from the table's JSON. */
function roundTrip(values: readonly unknown[]): { read: unknown[]; table: unknown[] } {
  const shared = new SharedValues()
  const encoded = values.map((value) => shared.share(value))
  const page = JSON.parse(JSON.stringify({ encoded, table: shared.table })) as {
    encoded: unknown[]
    table: unknown[]
  }
  return { read: page.encoded.map((value) => resolveShared(value, page.table)), table: page.table }
}

const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown
const isExtension = (entry: unknown) =>
  typeof entry === 'object' && entry !== null && Object.keys(entry).join() === EXTEND_KEY

describe('values stored once', () => {
  it('reads back every random value exactly, through the JSON of the page', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed)
      const values = Array.from({ length: 12 }, () => randomValue(next))
      const { read } = roundTrip(values)
      expect(read, `seed ${seed}`).toEqual(values.map(asJson))
    }
  })

  it('reads back lists that grow, shrink, are edited in the middle and interleave', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const next = random(seed)
      const item = () =>
        next() < 0.5
          ? { role: 'tool', content: `r${Math.floor(next() * 50)} ${'w'.repeat(60)}` }
          : randomValue(next)
      const lists: unknown[][] = [[], []]
      const values: unknown[] = []
      for (let step = 0; step < 40; step++) {
        const which = Math.floor(next() * 2)
        const list = lists[which]!
        const r = next()
        if (r < 0.6) lists[which] = [...list, ...Array.from({ length: 1 + Math.floor(next() * 3) }, item)]
        else if (r < 0.75) lists[which] = list.slice(0, Math.floor(next() * list.length))
        else if (r < 0.9 && list.length > 0) {
          const at = Math.floor(next() * list.length)
          lists[which] = [...list.slice(0, at), item(), ...list.slice(at + 1)]
        } else lists[which] = [...list]
        // As a request holds it, and as an item deep in another value.
        values.push({ body: { messages: lists[which] } }, [lists[which], lists[1 - which]])
      }
      const { read, table } = roundTrip(values)
      expect(read, `seed ${seed}`).toEqual(values.map(asJson))
      expect(table.some(isExtension), `seed ${seed}`).toBe(true)
    }
  })

  it('keeps a conversation as the list before it and what it adds', () => {
    const message = (i: number) => ({ role: 'user', content: `message ${i} ${'m'.repeat(80)}` })
    const history = Array.from({ length: 10 }, (_, i) => message(i))
    const shared = new SharedValues()
    const ref = (i: number) => ({ [REF_KEY]: i })
    // Each request from its own parse of the JSON, as a cassette read line by line gives it.
    const requests = [4, 6, 10].map((n) => shared.share(asJson({ messages: history.slice(0, n) })))
    expect(requests).toEqual([{ messages: ref(4) }, { messages: ref(7) }, { messages: ref(12) }])
    expect(shared.table.slice(0, 4)).toEqual(history.slice(0, 4))
    expect(shared.table.slice(4)).toEqual([
      [ref(0), ref(1), ref(2), ref(3)],
      history[4],
      history[5],
      { [EXTEND_KEY]: [4, ref(5), ref(6)] },
      ...history.slice(6),
      { [EXTEND_KEY]: [7, ref(8), ref(9), ref(10), ref(11)] },
    ])
    // The same list again is the same reference; a shorter one extends the longest it starts with.
    expect(shared.share(asJson(history.slice(0, 6)))).toEqual(ref(7))
    expect(shared.share(asJson(history.slice(0, 8)))).toEqual(ref(13))
    expect(shared.table[13]).toEqual({ [EXTEND_KEY]: [7, ref(8), ref(9)] })
    // Too short to be worth a reference of its own: written in place.
    expect(shared.share(asJson(history.slice(0, 2)))).toEqual([ref(0), ref(1)])
  })

  it('reads a chain of 50,000 extensions without running out of stack', () => {
    const table: unknown[] = [['first']]
    for (let i = 1; i < 50_000; i++) table.push({ [EXTEND_KEY]: [i - 1, i] })
    const list = resolveShared({ [REF_KEY]: 49_999 }, table) as unknown[]
    expect(list).toHaveLength(50_000)
    expect(list.slice(0, 3)).toEqual(['first', 1, 2])
    expect(list.at(-1)).toBe(49_999)
  })
})

// ---- the page of a long run weighs what the run adds, not its square ----

const FILLER = 'The customer writes about invoice INV-412, charged twice on 2 May; we check the ledger. '
const LOOKUP = {
  type: 'function',
  function: {
    name: 'lookup',
    description: 'Looks a record up by number',
    parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  },
}

/**
 * An OpenAI tool loop of `steps` model requests, the history growing by about 1 KB a step, as
 * a cassette read line by line gives it (no two decisions share an object).
 */
function toolLoop(steps: number): Cassette {
  const messages: unknown[] = [
    { role: 'system', content: 'You look records up one by one and then summarize.' },
    { role: 'user', content: `Look up records 1 to ${steps - 1}.` },
  ]
  const decisions: DecisionRecord[] = []
  const add = (d: Omit<DecisionRecord, 'seq' | 'key' | 'ms'>) =>
    decisions.push(
      asJson({
        seq: decisions.length + 1,
        key: `${d.kind}:${decisions.length.toString(16).padStart(16, '0')}`,
        ms: 3,
        ...d,
      }) as DecisionRecord,
    )
  for (let step = 1; step <= steps; step++) {
    const last = step === steps
    const call = {
      id: `call_${step.toString(36).padStart(24, 'x')}`,
      type: 'function',
      function: { name: 'lookup', arguments: `{"n":${step}}` },
    }
    const message = last
      ? { role: 'assistant', content: `Looked up ${steps - 1} records.`, refusal: null, annotations: [] }
      : { role: 'assistant', content: null, refusal: null, annotations: [], tool_calls: [call] }
    add({
      kind: 'llm',
      step,
      in: {
        api: 'openai-chat',
        method: 'POST',
        path: '/v1/chat/completions',
        body: { model: 'gpt-4o', messages, tools: [LOOKUP] },
      },
      out: {
        status: 200,
        headers: {
          'content-type': 'application/json',
          'x-request-id': `req_${step.toString(16).padStart(32, '0')}`,
        },
        body: {
          json: {
            id: `chatcmpl-${step.toString(36).padStart(29, '0')}`,
            object: 'chat.completion',
            created: 1796151298 + step,
            model: 'gpt-4o',
            choices: [{ index: 0, message, logprobs: null, finish_reason: last ? 'stop' : 'tool_calls' }],
            usage: { prompt_tokens: 90 + 220 * step, completion_tokens: 4, total_tokens: 94 + 220 * step },
          },
        },
      },
    })
    if (last) break
    const result = `Record ${step}: ${FILLER.repeat(10)}`
    add({ kind: 'tool', step: step + 1, in: { name: 'lookup', args: [{ n: step }] }, out: result })
    messages.push(message, { role: 'tool', tool_call_id: call.id, content: result })
  }
  return {
    header: {
      agentTape: 1,
      keyScheme: 1,
      test: 'test/long.test.ts > loop',
      recordedAt: '2026-01-01T00:00:00.000Z',
    },
    decisions,
  }
}

/** The run of `recording` that missed at decision `seq`: its input edited, no answer, nothing after. */
function divergedAt(recording: Cassette, seq: number): Cassette {
  const decisions = recording.decisions.slice(0, seq).map((d) => asJson(d) as DecisionRecord)
  const missed = decisions[seq - 1]!
  ;(missed.in as { body: { messages: { content: string }[] } }).body.messages[1]!.content += ' Then stop.'
  delete missed.out
  missed.key = 'llm:ffffffffffffffff'
  return { header: recording.header, decisions }
}

const bytes = (html: string) => Buffer.byteLength(html)

describe("a long run's page", () => {
  it('grows linearly with the run: 4 times the steps, less than 5 times the bytes', () => {
    const small = bytes(renderRunView({ file: 'a.jsonl', cassette: toolLoop(100) }))
    const large = bytes(renderRunView({ file: 'a.jsonl', cassette: toolLoop(400) }))
    // Stored as each request's whole list of references, it was 7.8 times (3.6 MB).
    expect(large / small).toBeLessThan(5)
  })

  it('shows a 300-step run and its divergence at decision 303 in less than 1.2 MB', () => {
    const recording = toolLoop(300)
    const run = divergedAt(recording, 303)
    const whole = bytes(JSON.stringify(recording.decisions)) + bytes(JSON.stringify(run.decisions))
    const page = bytes(
      renderCompareView(
        { file: 'rec.jsonl', cassette: recording },
        { file: 'run.jsonl', cassette: run },
        { run: true },
      ),
    )
    // The inputs whole weigh 66 MB. The page was 2.8 MB: 1.1 MB now, of which about 0.4 MB is the
    // run's content stored once (the tool results, the answers as recorded) and 0.5 MB the cards.
    expect(whole).toBeGreaterThan(50e6)
    expect(page).toBeLessThan(1.2e6)
  })
})
