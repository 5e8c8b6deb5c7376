import {
  createMemoryStore,
  currentTape,
  type Normalizer,
  parseCassette,
  type TapeState,
} from '@agent-tape/core'
import { tapeInternals } from '@agent-tape/core/internal'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runTaped } from '../support/tape-run.js'

// The wire fingerprint only skips work: over any sequence of requests, a replay that takes
// decisions by fingerprint must answer each request with the decision the keyed path takes,
// fail with the same report, and a recording must write the keys the keyed path writes. A
// normalizer that never fires turns the fingerprint off, which gives the keyed path to compare.

const boundary = installHttpBoundary()
let provider: FakeProvider
const store = createMemoryStore()
const KEYED: Normalizer[] = [{ name: 'never', kinds: ['none'], pattern: /x/g, replacement: 'x' }]

beforeAll(async () => {
  provider = await startFakeProvider({ reply: () => ({ text: 'ok' }), seed: 'wire' })
  boundary.addModelEndpoints(provider.url)
})
afterAll(() => provider.close())

/** One request of a run: what it says, and how its bytes are laid out. */
interface Sent {
  lane: '' | 'a' | 'b'
  /** How many messages of the shared history it carries (a prefix shared with the others). */
  history: number
  /** An extra last message, or none. */
  ask: string | null
  temperature: number
  /** Members of the body and of each message in reverse order: other bytes, same canonical input. */
  reversed: boolean
  /** A credential in the query: it takes no part in the key, and must not in the fingerprint. */
  key: string
  beta: boolean
}

const HISTORY = Array.from({ length: 12 }, (_, i) => ({
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: `Turn ${i}: ${'The invoice INV-412 was charged twice; we check the ledger. '.repeat(1 + (i % 5) * 40)}`,
}))

const sent: fc.Arbitrary<Sent> = fc.record({
  lane: fc.constantFrom('' as const, 'a' as const, 'b' as const),
  history: fc.integer({ min: 0, max: HISTORY.length }),
  ask: fc.oneof(fc.constant(null), fc.constantFrom('Refund it?', 'Which invoice?', 'Ça va ?')),
  temperature: fc.constantFrom(0, 1),
  reversed: fc.boolean(),
  key: fc.constantFrom('k1', 'k2', 'k3'),
  beta: fc.boolean(),
})

/** Another request at the same place: its bytes only, its meaning, or nothing changed. */
const variation = fc.record({
  reversed: fc.boolean(),
  key: fc.constantFrom('k1', 'k2', 'k4'),
  meaning: fc.constantFrom('same', 'same', 'same', 'ask', 'temperature', 'beta'),
})

function reverse(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).reverse())
}

function bodyOf(s: Sent): string {
  const messages: Record<string, unknown>[] = HISTORY.slice(0, s.history)
  if (s.ask) messages.push({ role: 'user', content: s.ask })
  if (messages.length === 0) messages.push({ role: 'user', content: 'Hello' })
  const body = { model: 'gpt-4o', messages, temperature: s.temperature }
  return JSON.stringify(s.reversed ? reverse({ ...body, messages: messages.map(reverse) }) : body)
}

async function send(s: Sent): Promise<number> {
  const request = () =>
    fetch(`${provider.openaiBaseURL}/chat/completions?api-version=2024-06-01&api-key=${s.key}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer sk-${s.key}`,
        ...(s.beta ? { 'openai-beta': 'assistants=v2' } : {}),
      },
      body: bodyOf(s),
    })
  const tape = currentTape()!
  const response = await (s.lane === '' ? request() : tape.lane(s.lane, request))
  await response.arrayBuffer()
  return response.status
}

async function runAll(requests: readonly Sent[]): Promise<number[]> {
  const statuses: number[] = []
  for (const s of requests) statuses.push(await send(s))
  return statuses
}

/** What a run did, as the runner and the reports see it. */
function outcome(state: TapeState, statuses: number[]) {
  return {
    statuses,
    status: state.status,
    replayed: state.replayed,
    missed: state.missed,
    unused: state.unused,
    decisions: state.decisions,
    divergences: state.divergences,
  }
}

let run = 0

it('takes by fingerprint the decision the key takes, reports misses alike, and records the same keys', async () => {
  let fastTotal = 0
  await fc.assert(
    fc.asyncProperty(
      fc.array(sent, { minLength: 1, maxLength: 8 }),
      fc.array(fc.tuple(fc.nat(), variation), { maxLength: 10 }),
      async (recorded, changes) => {
        run++
        const path = `wire-${run}.jsonl`
        const keyedPath = `wire-keyed-${run}.jsonl`
        const rec = await runTaped(store, path, 'update', () => runAll(recorded))
        const keyedRec = await runTaped(store, keyedPath, 'update', () => runAll(recorded), {
          normalizers: KEYED,
        })
        expect(rec.error).toBeUndefined()
        expect(keyedRec.error).toBeUndefined()
        expect(rec.result).toEqual(keyedRec.result)
        const cassette = parseCassette(store.files[path]!, path)
        const keyed = parseCassette(store.files[keyedPath]!, keyedPath)
        // The keys are the keyed path's; only the fingerprinted recording carries fingerprints.
        expect(cassette.decisions.map((d) => d.key)).toEqual(keyed.decisions.map((d) => d.key))
        expect(cassette.decisions.every((d) => /^[0-9a-f]{16}$/.test(d.wire ?? ''))).toBe(true)
        expect(keyed.decisions.every((d) => d.wire === undefined)).toBe(true)

        // The replayed run: the recorded requests, some repeated, moved, re-laid-out or changed.
        const replayed = recorded.map((s) => ({ ...s }))
        for (const [at, change] of changes) {
          const i = at % (replayed.length + 1)
          const base = replayed[Math.min(i, replayed.length - 1)]!
          const next: Sent = { ...base, reversed: change.reversed, key: change.key }
          if (change.meaning === 'ask') next.ask = base.ask === 'Refund it?' ? 'Which invoice?' : 'Refund it?'
          if (change.meaning === 'temperature') next.temperature = 1 - base.temperature
          if (change.meaning === 'beta') next.beta = !base.beta
          if (i === replayed.length) replayed.push(next)
          else replayed[i] = next
        }
        let fast = 0
        const wired = await runTaped(store, path, 'replay', async () => {
          const statuses = await runAll(replayed)
          fast = tapeInternals(currentTape()!).wireReplays()
          return statuses
        })
        const keyedReplay = await runTaped(
          store,
          path,
          'replay',
          async () => {
            const statuses = await runAll(replayed)
            expect(tapeInternals(currentTape()!).wireReplays()).toBe(0)
            return statuses
          },
          { normalizers: KEYED },
        )
        expect(wired.error).toBeUndefined()
        expect(outcome(wired.state, wired.result!)).toEqual(outcome(keyedReplay.state, keyedReplay.result!))
        fastTotal += fast
        // A run that repeats the recording byte for byte takes every decision by its fingerprint.
        if (
          replayed.every((s, i) => JSON.stringify(s) === JSON.stringify(recorded[i])) &&
          replayed.length === recorded.length
        ) {
          expect(fast).toBe(recorded.length)
          expect(wired.state.status).toBe('clean')
        }
      },
    ),
    { numRuns: 40 },
  )
  expect(fastTotal).toBeGreaterThan(0)
}, 120_000)
