import { describe, expect, it } from 'vitest'
import { computeKey, type DecisionPosition } from './canonical-key.js'
import type { Cassette, DecisionRecord } from './cassette-format.js'
import { createMemoryStore } from './cassette-store.js'
import { describeDecision } from './describe-decision.js'
import { isReplayMiss, type ReplayMiss } from './divergence.js'
import { IgnorePaths } from './ignore-paths.js'
import { KeyHasher } from './key-hasher.js'
import { RunLog } from './run-log.js'
import { SecretScanner } from './secrets/index.js'
import type { TapeOptions } from './tape-options.js'
import type { KeyedDecision, PartContext } from './tape-part.js'
import { ReplayPart } from './tape-replay.js'

const PATH = '__cassettes__/c.jsonl'
const RERECORD = 'AGENT_TAPE_MODE=update vitest run c.test.ts -t c'

function contextFor(
  options: Partial<TapeOptions> = {},
  mode: 'replay' | 'live-tools' = 'replay',
): PartContext {
  return {
    options: { id: 'c', cassettePath: PATH, store: createMemoryStore(), ...options },
    mode,
    divergence: { cassettePath: PATH, rerecordCommand: RERECORD },
    log: new RunLog(),
    keys: new KeyHasher(),
    secrets: new SecretScanner(),
    harness: undefined,
    ignores: new IgnorePaths([]),
  }
}

function decision(
  kind: string,
  input: unknown,
  position: DecisionPosition,
  decisionIndex: number,
): KeyedDecision {
  const key = computeKey(kind, input, position)
  return {
    kind,
    key,
    label: () => describeDecision(kind, input),
    position,
    asksModel: kind === 'llm',
    normalized: input,
    keyed: input,
    decisionIndex,
  }
}

function cassetteOf(records: [KeyedDecision, unknown][], overlapped = false): Cassette {
  const decisions: DecisionRecord[] = records.map(([d, out], i) => ({
    seq: i + 1,
    key: d.key,
    kind: d.kind,
    ...d.position,
    ms: 3,
    in: d.normalized,
    out,
  }))
  const header = { agentTape: 1, keyScheme: 1, test: 'c', recordedAt: '2026-01-01T00:00:00.000Z' }
  return { header: overlapped ? { ...header, overlapped: true } : header, decisions }
}

function missOf(fn: () => unknown): ReplayMiss {
  try {
    fn()
  } catch (error) {
    if (isReplayMiss(error)) return error
    throw error
  }
  throw new Error('expected a replay miss')
}

const ask = (prompt: string, step: number, index: number) =>
  decision('llm', { model: 'gpt-4o', messages: [{ role: 'user', content: prompt }] }, { step }, index)

describe('the replay part', () => {
  it('answers the Nth identical decision with the Nth recording, and counts what it replayed', () => {
    const search = decision('search', { q: 'same' }, { step: 0 }, 1)
    const part = new ReplayPart(
      cassetteOf([
        [search, 'first'],
        [search, 'second'],
      ]),
      contextFor(),
    )
    expect(part.begin(search)).toMatchObject({ action: 'replay', record: { seq: 1, out: 'first' } })
    expect(part.begin({ ...search, decisionIndex: 2 })).toMatchObject({ record: { seq: 2, out: 'second' } })
    expect(part.tally()).toEqual({ inCassette: 2, replayed: 2, recorded: 0, missed: 0, unused: [] })
  })

  it('replays a recorded error to the caller without running the function', async () => {
    const tool = decision('tool', { name: 'lookup', args: ['INV-9'] }, { step: 1 }, 1)
    const cassette = cassetteOf([[tool, undefined]])
    cassette.decisions[0]!.err = { name: 'NotFoundError', message: 'invoice INV-9 not found' }
    let calls = 0
    const error = await new ReplayPart(cassette, contextFor())
      .call(tool, () => calls++)
      .catch((e: Error) => e)
    expect(error).toMatchObject({ name: 'NotFoundError', message: 'invoice INV-9 not found' })
    expect(calls).toBe(0)
  })

  it('throws a miss, keeps it on the run, and lists it under its place in this run', () => {
    const context = contextFor()
    const part = new ReplayPart(cassetteOf([[ask('hello', 1, 1), 'hi']]), context)
    const miss = missOf(() => part.begin(ask('hello!', 1, 3)))
    expect(miss.details).toMatchObject({
      kind: 'llm',
      step: 1,
      decisionIndex: 3,
      total: 1,
      replayedBefore: 0,
      nearest: { seq: 1, step: 1, label: 'model request (gpt-4o)' },
      changes: [expect.objectContaining({ path: 'messages[0].content' })],
    })
    expect(miss.details.hint).toBeUndefined()
    expect(miss.message).toContain('  progress  diverged at decision 3 of 1 (0 replayed before it)')
    expect(context.log.divergences).toEqual([miss])
    expect(context.log.decisions).toEqual([
      {
        seq: 3,
        key: miss.details.key,
        kind: 'llm',
        step: 1,
        asksModel: true,
        label: 'model request (gpt-4o)',
        status: 'missed',
      },
    ])
    expect(part.tally()).toMatchObject({ missed: 1, replayed: 0 })
  })

  it('counts a miss in its lane when the cassette has several: with the run in all, or the cassette when the tape is one of several', () => {
    const inLane = (prompt: string, step: number, lane: string, index: number) =>
      decision(
        'llm',
        { model: 'gpt-4o', messages: [{ role: 'user', content: prompt }] },
        { step, lane },
        index,
      )
    const cassette = cassetteOf([
      [ask('plan', 1, 1), 'p'],
      [inLane('look up 1', 1, 'w', 2), 'a'],
      [inLane('look up 2', 2, 'w', 3), 'b'],
      [inLane('look up 3', 3, 'w', 4), 'c'],
    ])
    // A tape of its own (lanes by tape.lane): its place in the lane, then in the whole run.
    const own = new ReplayPart(cassette, contextFor())
    own.begin(ask('plan', 1, 1))
    own.begin(inLane('look up 1', 1, 'w', 2))
    const miss = missOf(() => own.begin(inLane('look up two', 2, 'w', 3)))
    expect(miss.details.inLane).toEqual({
      lane: 'w',
      index: 2,
      total: 3,
      replayedBefore: 1,
      lanes: 2,
      shared: false,
    })
    expect(miss.message).toContain(
      '  progress  diverged at decision 2 of 3 in lane "w" (1 replayed before it in that lane), decision 3 of 4 in all (2 replayed before it)\n',
    )
    // One tape of several (a process of a recorded command, its lane set): its lane and the cassette.
    const shared = new ReplayPart(cassette, contextFor({ lane: () => 'w' }))
    shared.begin(inLane('look up 1', 1, 'w', 1))
    const sharedMiss = missOf(() => shared.begin(inLane('look up two', 2, 'w', 2)))
    expect(sharedMiss.message).toContain(
      '  progress  diverged at decision 2 of 3 in lane "w" (1 replayed before it in that lane); the cassette holds 4 decisions in 2 lanes\n',
    )
    // A lane the recording does not have, in a cassette of one lane.
    const single = new ReplayPart(cassetteOf([[ask('plan', 1, 1), 'p']]), contextFor({ lane: () => '1' }))
    const newLane = missOf(() => single.begin(inLane('plan', 1, '1', 1)))
    expect(newLane.message).toContain(
      '  progress  diverged at decision 1 in lane "1", which has no recorded decisions; the cassette holds 1 decision in 1 lane\n',
    )
  })

  it('names the step a request was recorded at when it arrives at another step of its lane', () => {
    const cassette = cassetteOf([
      [ask('researcher: find sources', 1, 1), 'a'],
      [ask('writer: outline', 2, 2), 'b'],
    ])
    const part = new ReplayPart(cassette, contextFor())
    const miss = missOf(() => part.begin(ask('writer: outline', 1, 1)))
    expect(miss.details.nearest).toMatchObject({ seq: 2, step: 2 })
    expect(miss.details.hint).toBe(
      "this very request was recorded at step 2, not step 1: concurrent branches took their step numbers in another order than while recording. Run each concurrent sub-agent in its own lane, tape.lane('researcher', () => research(topic)), and re-record.",
    )
  })

  it('warns that the nearest request may be another branch when the cassette recorded overlapping requests', () => {
    const part = new ReplayPart(cassetteOf([[ask('first', 1, 1), 'a']], true), contextFor())
    const miss = missOf(() => part.begin(ask('second', 1, 1)))
    expect(miss.details.hint).toMatch(
      /^model requests overlapped while this cassette was recorded, so the nearest recorded request \(#1\) may belong to another concurrent branch\./,
    )
  })

  it('says the cassette has no decision of the kind when there is nothing near', () => {
    const part = new ReplayPart(cassetteOf([[ask('hello', 1, 1), 'hi']]), contextFor())
    const miss = missOf(() => part.begin(decision('search', { q: 'x' }, { step: 0 }, 1)))
    expect(miss.details.nearest).toBeUndefined()
    expect(miss.message).toContain('  nearest   none: the cassette has no search decisions')
  })

  it('fails the run when it ends with recorded decisions unused, unless failOnUnused is false', async () => {
    const cassette = cassetteOf([
      [ask('one', 1, 1), 'a'],
      [ask('two', 2, 2), 'b'],
    ])
    const strict = contextFor()
    const part = new ReplayPart(cassette, strict)
    part.begin(ask('one', 1, 1))
    expect(await part.finish()).toEqual({ status: 'diverged', written: false, writeSkipped: 'replay' })
    expect(strict.log.divergences.map((d) => d.code)).toEqual(['ERR_TAPE_UNUSED'])
    expect(part.tally().unused.map((d) => d.seq)).toEqual([2])
    const lenient = new ReplayPart(cassette, contextFor({ failOnUnused: false }))
    lenient.begin(ask('one', 1, 1))
    expect(await lenient.finish()).toMatchObject({ status: 'clean' })
  })

  it('keeps the run as far as it went: replayed decisions as recorded, a miss with its redacted input', () => {
    const context = contextFor()
    const first = ask('hello', 1, 1)
    const tool = decision('tool', { name: 'lookup', args: ['INV-9'] }, { step: 1 }, 2)
    const part = new ReplayPart(
      cassetteOf([
        [first, 'hi'],
        [tool, 'found'],
        [ask('thanks', 2, 3), 'bye'],
      ]),
      context,
    )
    expect(part.begin(first).action).toBe('replay')
    expect(part.begin(tool).action).toBe('replay')
    const secret = `sk-proj-${'Xk9pQ2vL7mR4tY8w'.repeat(3)}`
    missOf(() => part.begin(ask(`thanks, my key is ${secret}`, 2, 3)))
    const run = part.run()
    expect(run.header).toMatchObject({ test: 'c', agentTape: 2, runtime: { node: process.version } })
    expect(run.header.recordedAt).not.toBe('2026-01-01T00:00:00.000Z')
    expect(run.decisions.map((d) => [d.seq, d.kind, d.step, d.out])).toEqual([
      [1, 'llm', 1, 'hi'],
      [2, 'tool', 1, 'found'],
      [3, 'llm', 2, undefined],
    ])
    expect(JSON.stringify(run.decisions[2]!.in)).toContain('thanks, my key is [REDACTED:')
    expect(JSON.stringify(run)).not.toContain(secret)
  })

  it('keys inputs in place unless a normalizer function could change them', () => {
    const cassette = cassetteOf([])
    expect(new ReplayPart(cassette, contextFor()).keysInPlace).toBe(true)
    const pattern = { name: 'date', pattern: /\d{4}/g, replacement: '<year>' }
    expect(new ReplayPart(cassette, contextFor({ normalizers: [pattern] })).keysInPlace).toBe(true)
    const apply = { name: 'drop', apply: (input: unknown) => input }
    expect(new ReplayPart(cassette, contextFor({ normalizers: [apply] })).keysInPlace).toBe(false)
  })
})
