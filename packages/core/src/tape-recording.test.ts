import { describe, expect, it } from 'vitest'
import { computeKey, type DecisionPosition } from './canonical-key.js'
import { type CaptureOutcome, parseCassette, serializeCassette } from './cassette-format.js'
import { createMemoryStore } from './cassette-store.js'
import { describeDecision } from './describe-decision.js'
import { isAgentTapeError } from './errors.js'
import { IgnorePaths } from './ignore-paths.js'
import { KeyHasher } from './key-hasher.js'
import { RunLog } from './run-log.js'
import { SecretScanner } from './secrets/index.js'
import type { TapeOptions } from './tape-options.js'
import type { KeyedDecision, PartContext } from './tape-part.js'
import { RecordingPart } from './tape-recording.js'

const PATH = '__cassettes__/c.jsonl'

function contextFor(store = createMemoryStore(), options: Partial<TapeOptions> = {}): PartContext {
  return {
    options: { id: 'c', cassettePath: PATH, store, ...options },
    mode: 'auto',
    divergence: { cassettePath: PATH, rerecordCommand: 'rerecord' },
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

/** Records one model answer and one tool result, and ends the run. */
async function record(store: ReturnType<typeof createMemoryStore>, answer: string, ms: number) {
  const text = store.files[PATH]
  const part = new RecordingPart(
    text === undefined ? undefined : parseCassette(text, PATH),
    contextFor(store),
  )
  part.begin(decision('llm', { prompt: 'refund INV-412' }, { step: 1 }, 1)).complete({ out: answer }, ms)
  await part.call(decision('tool', { name: 'refund', args: ['INV-412'] }, { step: 1 }, 2), () => 'ok')
  return part.finish()
}

describe('the recording part', () => {
  it('writes a new cassette, numbered in the order the run made its decisions', async () => {
    const store = createMemoryStore()
    expect(await record(store, 'on it', 812.4)).toEqual({
      status: 'recorded',
      written: true,
      writeSkipped: undefined,
    })
    const cassette = parseCassette(store.files[PATH]!, PATH)
    expect(cassette.header).toMatchObject({ agentTape: 2, keyScheme: 1, test: 'c' })
    expect(cassette.decisions.map(({ seq, kind, step, ms, out }) => ({ seq, kind, step, ms, out }))).toEqual([
      { seq: 1, kind: 'llm', step: 1, ms: 812, out: 'on it' },
      { seq: 2, kind: 'tool', step: 1, ms: expect.any(Number), out: 'ok' },
    ])
  })

  it("writes when each decision began, in whole milliseconds from the recording's start, after the one before it ended", async () => {
    const store = createMemoryStore()
    const part = new RecordingPart(undefined, contextFor(store))
    // At least `ms` by the clock the part reads: a timer may fire up to a millisecond early by
    // it (libuv schedules from the loop's cached time), and `at` is rounded down.
    const pause = async (ms: number) => {
      const end = performance.now() + ms
      while (performance.now() < end)
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.ceil(end - performance.now()))))
    }
    await pause(20)
    for (let i = 1; i <= 4; i++) {
      await part.call(decision('tool', { name: 'lookup', args: [i] }, { step: i }, i), () => pause(15))
      await pause(5)
    }
    // Two calls at once: both begin before either ends.
    await Promise.all(
      [5, 6].map((i) =>
        part.call(decision('tool', { name: 'lookup', args: [i] }, { step: 5 }, i), () => pause(30)),
      ),
    )
    await part.finish()
    const decisions = parseCassette(store.files[PATH]!, PATH).decisions
    const at = decisions.map((d) => d.at!)
    for (const value of at) expect(Number.isInteger(value)).toBe(true)
    expect(at[0]).toBeGreaterThanOrEqual(20)
    for (let i = 1; i < 5; i++) {
      // Each began after the one before ended (rounding to whole milliseconds costs at most one).
      expect(at[i]).toBeGreaterThanOrEqual(at[i - 1]! + decisions[i - 1]!.ms - 1)
      expect(at[i]).toBeGreaterThanOrEqual(at[i - 1]! + 15 + 5 - 1)
    }
    expect(at[5]! - at[4]!).toBeLessThan(decisions[4]!.ms)
  })

  it('writes nothing when the recording equals the cassette it replaces, whatever its timings', async () => {
    const store = createMemoryStore()
    await record(store, 'on it', 812)
    const before = store.files[PATH]
    expect(await record(store, 'on it', 95)).toEqual({
      status: 'recorded',
      written: false,
      writeSkipped: 'unchanged',
    })
    expect(store.files[PATH]).toBe(before)
    expect(await record(store, 'done', 95)).toMatchObject({ written: true })
    expect(parseCassette(store.files[PATH]!, PATH).decisions[0]!.out).toBe('done')
  })

  it('writes a cassette of format 1 again in format 2 when the run is the same, then leaves it alone', async () => {
    const store = createMemoryStore()
    await record(store, 'on it', 812)
    const current = parseCassette(store.files[PATH]!, PATH)
    const old = serializeCassette({ ...current, header: { ...current.header, agentTape: 1 } })
    store.files[PATH] = old
    expect(await record(store, 'on it', 95)).toMatchObject({ written: true })
    const migrated = parseCassette(store.files[PATH]!, PATH)
    expect(migrated.header.agentTape).toBe(2)
    expect(migrated.decisions.map((d) => d.in)).toEqual(current.decisions.map((d) => d.in))
    const after = store.files[PATH]
    expect(await record(store, 'on it', 50)).toMatchObject({ written: false, writeSkipped: 'unchanged' })
    expect(store.files[PATH]).toBe(after)
  })

  it('keeps the env salt of the cassette it replaces, and makes one for a new cassette', () => {
    const fresh = new RecordingPart(undefined, contextFor())
    expect(fresh.envSalt).toMatch(/^[0-9a-f]{24}$/)
    expect(new RecordingPart(undefined, contextFor()).envSalt).not.toBe(fresh.envSalt)
    const previous = {
      header: { agentTape: 1, keyScheme: 1, test: 'c', recordedAt: '', envSalt: 'abc123' },
      decisions: [],
    }
    expect(new RecordingPart(previous, contextFor()).envSalt).toBe('abc123')
  })

  it('numbers the cassette by what it records: a decision whose input it could not walk takes no seq', async () => {
    const deep: Record<string, unknown> = {}
    let node = deep
    for (let i = 0; i < 10_000; i++) node = node.a = {}
    const context = contextFor()
    const part = new RecordingPart(undefined, context)
    const refused = (() => {
      try {
        part.begin({ ...decision('search', {}, { step: 0 }, 1), normalized: deep })
      } catch (error) {
        return error
      }
    })()
    expect(isAgentTapeError(refused) && refused.code).toBe('ERR_TAPE_USAGE')
    expect(context.log.divergences).toEqual([refused])
    await part.call(decision('search', { q: 'flat' }, { step: 0 }, 2), () => 'found')
    expect(context.log.decisions.map((d) => d.seq)).toEqual([1])
    expect(part.tally()).toMatchObject({ recorded: 1 })
  })

  it('waits for decisions still in flight, and names them when they outlive the timeout', async () => {
    const store = createMemoryStore()
    const waited = new RecordingPart(undefined, contextFor(store))
    const late = waited.begin(decision('http', { url: 'https://api.example.com' }, { step: 0 }, 1))
    setTimeout(() => late.complete({ out: 'body' }, 30), 20)
    expect(await waited.finish()).toMatchObject({ written: true })
    expect(parseCassette(store.files[PATH]!, PATH).decisions[0]!.out).toBe('body')
    const stuck = new RecordingPart(undefined, contextFor(createMemoryStore(), { pendingTimeoutMs: 10 }))
    const { key } = stuck.begin(decision('http', { url: 'https://api.example.com' }, { step: 0 }, 1))
    await expect(stuck.finish()).rejects.toThrow(
      `[agent-tape] Cannot write cassette ${PATH}: decisions #1 ${key} were still in flight 10 ms after the run ended`,
    )
  })

  it('warns once, and marks the cassette, when model requests of one lane overlap', async () => {
    const store = createMemoryStore()
    const context = contextFor(store)
    const part = new RecordingPart(undefined, context)
    const first = part.begin(decision('llm', { prompt: 'a' }, { step: 1 }, 1))
    const second = part.begin(decision('llm', { prompt: 'b' }, { step: 2 }, 2))
    first.complete({ out: 'A' }, 5)
    second.complete({ out: 'B' }, 5)
    await part.finish()
    expect(context.log.warnings).toHaveLength(1)
    expect(context.log.warnings[0]).toContain('Model requests overlapped while recording (steps 1 and 2')
    expect(parseCassette(store.files[PATH]!, PATH).header.overlapped).toBe(true)
  })

  it('writes where a run came from, read when the cassette is written, and reads it back', async () => {
    const store = createMemoryStore()
    let outcome: CaptureOutcome | undefined
    const part = new RecordingPart(
      undefined,
      contextFor(store, {
        source: () => ({
          kind: 'capture',
          name: 'triage',
          runId: 'r-1',
          input: { ticket: 'INV-7' },
          outcome,
        }),
      }),
    )
    part.begin(decision('llm', { prompt: 'a' }, { step: 1 }, 1)).complete({ out: 'A' }, 5)
    outcome = { ok: false, reason: 'the user reported a wrong refund' }
    await part.finish()
    expect(parseCassette(store.files[PATH]!, PATH).header.source).toEqual({
      kind: 'capture',
      name: 'triage',
      runId: 'r-1',
      input: { ticket: 'INV-7' },
      outcome: { ok: false, reason: 'the user reported a wrong refund' },
    })
    const command = {
      kind: 'command' as const,
      argv: ['node', 'agent.js', '--password', '[REDACTED:$AGENT_TAPE_ARG_3]'],
      cwd: '.',
      exitCode: 1,
      placeholders: [{ arg: 3, env: 'AGENT_TAPE_ARG_3', option: '--password' }],
    }
    const fixed = new RecordingPart(undefined, contextFor(store, { source: command }))
    await fixed.finish()
    expect(parseCassette(store.files[PATH]!, PATH).header.source).toEqual(command)
  })

  it('refuses a header whose source is not one it knows, naming the field', () => {
    const header = { agentTape: 2, keyScheme: 1, test: 't', recordedAt: '2026-01-01T00:00:00.000Z' }
    for (const [source, why] of [
      [{ kind: 'cron' }, 'has kind "cron", not "command" or "capture"'],
      [{ kind: 'command', argv: 'node a.js', cwd: '.' }, 'of a command has no "argv" list of strings'],
      [{ kind: 'capture', name: 'x' }, 'of a captured run has no "name" or "runId"'],
      ['node', 'is not an object'],
      [
        { kind: 'command', argv: ['mysql', '-p'], cwd: '.', placeholders: [{ arg: 1, env: 'PW' }] },
        'of a command has a placeholder (#0) for argument 1, which does not hold [REDACTED:$PW]',
      ],
      [
        { kind: 'command', argv: ['mysql'], cwd: '.', placeholders: [{ arg: 1, env: 'PW' }] },
        'of a command has a placeholder (#0) whose "arg" is not the index of an argument',
      ],
      [
        { kind: 'command', argv: ['a'], cwd: '.', placeholders: [{ arg: 0, env: 'not a name' }] },
        'of a command has a placeholder (#0) without an "env" variable name',
      ],
      [
        { kind: 'command', argv: ['a'], cwd: '.', placeholders: 'PW' },
        'of a command has "placeholders" that is not a list',
      ],
    ] as const) {
      expect(() => parseCassette(`${JSON.stringify({ ...header, source })}\n`, PATH)).toThrow(
        `[agent-tape] Cannot load cassette ${PATH} (line 1): the header's "source" ${why}.`,
      )
    }
  })
  it('gives the complete decisions so far as a cassette, in flight ones left out and the rest renumbered', () => {
    let exitCode: number | null | undefined
    const part = new RecordingPart(
      undefined,
      contextFor(createMemoryStore(), {
        source: () => ({ kind: 'command', argv: ['node'], cwd: '.', exitCode }),
      }),
    )
    part.begin(decision('llm', { prompt: 'a' }, { step: 1 }, 1))
    part.begin(decision('llm', { prompt: 'b' }, { step: 2 }, 2)).complete({ out: 'B' }, 3)
    exitCode = 0
    const so = part.recording()
    expect(so.decisions.map(({ seq, step, out }) => ({ seq, step, out }))).toEqual([
      { seq: 1, step: 2, out: 'B' },
    ])
    expect(so.header).toMatchObject({ test: 'c', source: { kind: 'command', exitCode: 0 } })
    expect(parseCassette(serializeCassette(so), PATH).decisions).toHaveLength(1)
  })

  it('waits for a decision that begins while the recording settles, so none is written without its answer', async () => {
    const store = createMemoryStore()
    const part = new RecordingPart(undefined, contextFor(store))
    const first = part.begin(decision('llm', { prompt: 'a' }, { step: 1 }, 1))
    const finished = part.finish()
    // As the first answer ends, the run (a stream handed on) makes its next request.
    first.complete({ out: 'A' }, 5)
    const second = part.begin(decision('llm', { prompt: 'b' }, { step: 2 }, 2))
    setTimeout(() => second.complete({ out: 'B' }, 5), 20)
    await finished
    expect(parseCassette(store.files[PATH]!, PATH).decisions.map((d) => d.out)).toEqual(['A', 'B'])
  })

  it('a result JSON cannot hold fails a test at once, and fails a run that fails open without touching its result', async () => {
    const counted = () => 10n as unknown
    const test = new RecordingPart(undefined, contextFor())
    await expect(test.call(decision('tool', { name: 'count' }, { step: 0 }, 1), counted)).rejects.toThrow(
      'BigInt',
    )
    const context = contextFor(createMemoryStore(), { failOpen: true })
    const served = new RecordingPart(undefined, context)
    expect(await served.call(decision('tool', { name: 'count' }, { step: 0 }, 1), counted)).toBe(10n)
    expect(context.log.divergences.map((d) => d.message)).toEqual([
      expect.stringMatching(
        /^\[agent-tape\] Cannot record the result of tool "count": it cannot be stored as JSON \(.*BigInt/,
      ),
    ])
  })
})
