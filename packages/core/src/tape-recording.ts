import type { DecisionPosition } from './canonical-key.js'
import { encodeInputs } from './cassette-encoding.js'
import {
  type Cassette,
  type CassetteHeader,
  type DecisionRecord,
  isSameRecording,
  serializeCassette,
} from './cassette-format.js'
import { renumbered } from './cassette-inputs.js'
import { createHeader } from './cassette-line.js'
import { DivergenceError } from './divergence.js'
import { createEnvSalt, envSummary } from './env-hash.js'
import { AgentTapeError } from './errors.js'
import { formatMessage } from './format-message.js'
import { toJsonData } from './json-walk.js'
import { toRecordedError } from './recorded-error.js'
import { scanCassette } from './secret-scan.js'
import { runInsideDecision } from './tape-context.js'
import type { BegunDecision } from './tape-options.js'
import {
  type KeyedDecision,
  type PartContext,
  type PartEnding,
  type PartSlot,
  type PartTally,
  TapePart,
} from './tape-part.js'

type RecordingDecision = Extract<BegunDecision, { action: 'record' }>

/** A place held in {@link RecordingPart.reserve}. */
interface HeldPlace extends PartSlot {
  record: DecisionRecord
}

interface Pending {
  record: DecisionRecord
  done: Promise<void>
}

/**
 * Records a run into a new cassette: every decision runs for real and is kept with its redacted
 * input, numbered in the order the run made it. As the run ends, it waits for decisions still
 * in flight (a streamed response being read), scans the recording for secrets, and writes it,
 * unless it equals the cassette it replaces.
 */
export class RecordingPart extends TapePart {
  readonly action = 'record'
  readonly keysInPlace = false
  readonly replayable: readonly DecisionRecord[] = []
  private salt: string | undefined
  private readonly records: DecisionRecord[] = []
  private readonly pending = new Set<Pending>()
  /** Places held for decisions made later (see {@link reserve}), not yet filled or given up. */
  private readonly held = new Set<DecisionRecord>()
  /** Whether two model requests of one lane were in flight together in this recording. */
  private overlapped = false
  /** Inputs are redacted as the cassette is written, not as each decision is made (see `begin`). */
  private readonly deferRedaction: boolean
  /** Set when a boundary refused a decision the run needs: the recording is not written. */
  private abandoned = false
  /** Decisions replayed from the cassette this one replaces and kept as recorded (see {@link keep}). */
  private readonly kept = new Set<DecisionRecord>()
  /**
   * The recording's first moment, from which each decision's `at` counts: the part is made as
   * its tape opens. Monotonic, as the durations are (a wall clock may step back).
   */
  private readonly openedAt = performance.now()

  constructor(
    private readonly previous: Cassette | undefined,
    context: PartContext,
  ) {
    super(context)
    this.deferRedaction = context.options.failOpen === true
  }

  /**
   * Holds the next place for a decision made later (see `ReservedRequest`): a record with no key
   * yet, numbered and timed as of now, which {@link begin} fills and {@link release} takes out.
   */
  override reserve(kind: string, position: DecisionPosition): PartSlot {
    const record: DecisionRecord = {
      seq: this.records.length + 1,
      key: `${kind}:held` as DecisionRecord['key'],
      kind,
      ...position,
      ms: 0,
      at: Math.floor(performance.now() - this.openedAt),
      in: null,
    }
    this.records.push(record)
    this.held.add(record)
    const slot: HeldPlace = { record, release: () => this.release(record) }
    return slot
  }

  /**
   * The salt of the env hashes: kept from the cassette this one replaces, so that a re-record that
   * changes nothing writes nothing; made at first use otherwise (a run captured in a server that
   * reads no environment makes none: drawing random bytes is a system call).
   */
  get envSalt(): string {
    this.salt ??= this.previous?.header.envSalt ?? createEnvSalt()
    return this.salt
  }

  /**
   * Keeps a decision replayed from the cassette this recording replaces, as it was recorded, in
   * its place in the run (a `resume` re-record); its `seq` is the next one. Returns that `seq`.
   */
  keep(record: DecisionRecord): number {
    const seq = this.records.length + 1
    const kept = record.seq === seq ? record : renumbered(record, seq)
    this.records.push(kept)
    this.kept.add(kept)
    return seq
  }

  /** Records a decision whose outcome the caller completes later. */
  begin(decision: KeyedDecision): RecordingDecision {
    const { kind, key, position } = decision
    const settled = this.passGate(decision)
    const held = (decision.slot as HeldPlace | undefined)?.record
    const record: DecisionRecord = {
      // The cassette counts what it records; a decision the run could not walk is not among them.
      seq: held ? held.seq : this.records.length + 1,
      key,
      kind,
      ...position,
      ms: 0,
      at: held ? held.at : Math.floor(performance.now() - this.openedAt),
      ...(decision.wire === undefined ? {} : { wire: decision.wire }),
      // A run that fails open keeps its own copy of the input and redacts it when it is written:
      // most such runs are discarded as they end, and are never read by anyone.
      in: this.deferRedaction
        ? decision.normalized
        : this.context.log.walk(kind, () => this.redact(decision.normalized)),
    }
    if (held && this.held.delete(held)) this.records[this.records.indexOf(held)] = record
    else this.records.push(record)
    this.context.log.note(decision, record.seq, 'recorded')
    if (kind === 'llm') this.noteOverlap(record)
    let resolve = () => {}
    const pending: Pending = { record, done: new Promise<void>((r) => (resolve = r)) }
    this.pending.add(pending)
    return {
      action: 'record',
      key,
      complete: (outcome, ms) => {
        record.ms = Math.round(ms)
        if ('err' in outcome && outcome.err) record.err = outcome.err
        else if (outcome.out !== undefined) record.out = outcome.out
        this.pending.delete(pending)
        resolve()
        settled?.(record)
      },
    }
  }

  async call<T>(decision: KeyedDecision, fn: () => T | Promise<T>): Promise<Awaited<T>> {
    const begun = this.begin(decision)
    const started = performance.now()
    let value: Awaited<T>
    try {
      value = await runInsideDecision(fn)
    } catch (error) {
      begun.complete({ err: toRecordedError(error) }, performance.now() - started)
      throw error
    }
    let out: unknown
    try {
      out = toJsonData(value)
    } catch (error) {
      // A result JSON cannot hold (a cycle, a BigInt): a test learns it at once; a run serving
      // real traffic gets its result, and its recording fails instead.
      begun.complete({ err: toRecordedError(error) }, performance.now() - started)
      if (!this.context.options.failOpen) throw error
      this.context.log.diverge(unrecordable(decision, error))
      return value
    }
    begun.complete({ out }, performance.now() - started)
    return value
  }

  /**
   * Asks the tape's live gate (see `TapeOptions.liveGate`) before a decision is performed: a
   * refusal fails the run, gives up the recording and is thrown to the boundary, which answers
   * with it instead of performing the decision.
   */
  private passGate(decision: KeyedDecision): ((record: DecisionRecord) => void) | undefined {
    const gate = this.context.options.liveGate
    if (!gate) return undefined
    const answer = gate({
      kind: decision.kind,
      key: decision.key,
      asksModel: decision.asksModel,
      step: decision.position.step,
      ...(decision.position.lane === undefined ? {} : { lane: decision.position.lane }),
      committed: this.previous,
    })
    if ('refused' in answer) {
      this.context.log.diverge(answer.refused)
      this.abandoned = true
      throw answer.refused
    }
    return answer.settled
  }

  override abandon(): void {
    this.abandoned = true
  }

  /** Takes a held place out, and numbers the decisions after it one less. */
  private release(record: DecisionRecord): void {
    if (!this.held.delete(record)) return
    const index = this.records.indexOf(record)
    this.records.splice(index, 1)
    for (let i = index; i < this.records.length; i++) {
      const moved = this.records[i]!
      if (!this.kept.has(moved)) moved.seq = i + 1
      else {
        // A kept record may be the cassette's own object, which this run does not change.
        this.kept.delete(moved)
        this.records[i] = renumbered(moved, i + 1)
        this.kept.add(this.records[i]!)
      }
    }
  }

  async finish(): Promise<PartEnding> {
    // A place still held was never decided: the cassette has no hole where it was.
    for (const record of [...this.held]) this.release(record)
    await this.settlePending()
    if (this.abandoned) return { status: 'recorded', written: false, writeSkipped: 'refused' }
    const written = await this.write()
    return { status: 'recorded', written, writeSkipped: written ? undefined : 'unchanged' }
  }

  override opened(): Cassette | undefined {
    return this.previous
  }

  override adopt(part: { recorded?: readonly DecisionRecord[] }): void {
    for (const record of part.recorded ?? []) this.records.push({ ...record, seq: this.records.length + 1 })
  }

  override recording(): Cassette {
    const inFlight = new Set([...this.pending].map((p) => p.record).concat([...this.held]))
    const decisions = this.records.filter((r) => !inFlight.has(r)).map((r, i) => ({ ...r, seq: i + 1 }))
    return { header: this.header(), decisions }
  }

  override tally(): PartTally {
    return {
      inCassette: 0,
      replayed: this.kept.size,
      recorded: this.records.length - this.kept.size,
      missed: 0,
      unused: [],
    }
  }

  /**
   * A model request that starts while another of the same lane is still in flight. Concurrent
   * branches without lanes take their steps in the order their requests happen to start, which
   * a replay need not repeat.
   */
  private noteOverlap(record: DecisionRecord): void {
    const overlapping = [...this.pending].find(
      (p) => p.record.kind === 'llm' && p.record.lane === record.lane,
    )
    if (!overlapping) return
    this.overlapped = true
    const where = record.lane === undefined ? '' : ` in lane ${JSON.stringify(record.lane)}`
    this.context.log.warn(
      formatMessage({
        what: `Model requests overlapped while recording${where} (steps ${overlapping.record.step} and ${record.step} were in flight together)`,
        why: 'concurrent branches that share a lane take their step numbers in the order their requests start, so a replay that starts them in another order misses',
        fix: "Run each concurrent sub-agent in its own lane, tape.lane('researcher', () => research(topic)), and re-record",
      }),
    )
  }

  private async settlePending(): Promise<void> {
    if (this.pending.size === 0) return
    const timeout = this.context.options.pendingTimeoutMs ?? 10_000
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeout)
    })
    let result: 'timeout' | undefined
    // Until none is left: a decision may begin while others settle (a stream the run hands on
    // makes its next request as it ends), and it must be whole in the cassette too.
    while (this.pending.size > 0 && result !== 'timeout') {
      result = await Promise.race([
        Promise.all([...this.pending].map((p) => p.done)).then(() => undefined),
        expired,
      ])
    }
    clearTimeout(timer)
    if (result === 'timeout') {
      const seqs = [...this.pending].map((p) => `#${p.record.seq} ${p.record.key}`).join(', ')
      throw new AgentTapeError('ERR_TAPE_USAGE', {
        what: `Cannot write cassette ${this.context.divergence.cassettePath}`,
        why: `decisions ${seqs} were still in flight ${timeout} ms after the run ended (a response body that was never read to the end?)`,
        fix: 'Consume or cancel every response inside the test, or raise pendingTimeoutMs',
      })
    }
  }

  /** Writes the cassette unless it records what the one it replaces does; says whether it wrote. */
  private async write(): Promise<boolean> {
    const { options, divergence, secrets, log } = this.context
    if (this.deferRedaction) for (const r of this.records) r.in = log.walk(r.kind, () => this.redact(r.in))
    const cassette: Cassette = { header: this.header(), decisions: this.records }
    // Encoded once: the scan reads what will be written, and the comparison and the text reuse it.
    const encoded = encodeInputs(cassette)
    scanCassette(cassette, divergence.cassettePath, secrets, encoded)
    // A cassette of an older format is written again, in this one, even when the run is the same.
    if (this.previous && isSameRecording(this.previous, cassette, { b: encoded })) return false
    await options.store.write(divergence.cassettePath, serializeCassette(cassette, encoded))
    return true
  }

  private header(): CassetteHeader {
    const { options, harness, ignores } = this.context
    const env = envSummary(this.records)
    const source = typeof options.source === 'function' ? options.source() : options.source
    return createHeader({
      test: options.id,
      harness,
      sdks: options.sdks,
      ...(env ? { envSalt: this.envSalt, env } : {}),
      ...(this.overlapped ? { overlapped: true } : {}),
      ...(source ? { source } : {}),
      ...(ignores.size > 0 ? { ignore: ignores.paths } : {}),
      ...this.rerecordedFrom(),
    })
  }

  /** Where a recording that kept decisions of the one it replaces began to record (see {@link keep}). */
  private rerecordedFrom(): Pick<CassetteHeader, 'rerecordedFrom'> {
    if (this.kept.size === 0) return {}
    const first = this.records.find((r) => !this.kept.has(r))
    if (!first) return {}
    const { seq, step, lane } = first
    return { rerecordedFrom: { seq, step, ...(lane === undefined ? {} : { lane }), kept: this.kept.size } }
  }
}

function unrecordable(decision: KeyedDecision, error: unknown): DivergenceError {
  return new DivergenceError('ERR_TAPE_USAGE', {
    what: `Cannot record the result of ${decision.label()}`,
    why: `it cannot be stored as JSON (${error instanceof Error ? error.message : String(error)})`,
    fix: 'Return plain data from the tool (or a summary of it)',
  })
}
