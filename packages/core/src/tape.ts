import { type DecisionPosition, isValidKind } from './canonical-key.js'
import { describeDecision } from './describe-decision.js'
import type { DivergenceError, ReplayMiss } from './divergence.js'
import { AgentTapeError, ConfigError, isAgentTapeError } from './errors.js'
import type { HarnessIdentity } from './harness.js'
import { IgnorePaths } from './ignore-paths.js'
import { asJsonData, toJsonData } from './json-walk.js'
import { KeyHasher } from './key-hasher.js'
import { MODE_ENV, type TapeMode } from './modes.js'
import { applyNormalizers } from './normalize.js'
import { RunLog } from './run-log.js'
import { SecretScanner, secretEnvValues } from './secrets/index.js'
import { isInsideDecision, runFinishHooks } from './tape-context.js'
import { EnvReads } from './tape-env.js'
import { TAPE_INTERNALS, type TapeInternals } from './tape-internals.js'
import { Lanes } from './tape-lanes.js'
import type {
  BeginOptions,
  BegunDecision,
  ReservedRequest,
  RunPlace,
  TapeOptions,
  WireRequest,
} from './tape-options.js'
import type { KeyedDecision, PartContext, PartSlot, TapePart } from './tape-part.js'
import type { TapeAction, TapeState } from './tape-state.js'
import { type TapedTools, type ToolDefinition, type ToolOptions, toolDecision, wrapTools } from './tools.js'
import { WireHasher, wireFingerprint } from './wire-hasher.js'

/**
 * Records or replays the boundaries of one run. Create it with {@link openTape}, route each
 * boundary through it, then call {@link Tape.finish} when the run ends.
 *
 * @example
 * const tape = await openTape({ id: 'issue-412', cassettePath, store })
 * const tools = tape.tools({ lookup_invoice, refund: { run: refund, effect: 'irreversible', stub: fakeRefund } })
 * const reply = await tape.call('llm', { messages, tools: schemas }, () => model(messages))
 * await tape.finish()
 * const failure = tape.failure() // a ReplayMiss, a DivergenceError or a boundary's refusal, or undefined
 */
export class Tape {
  readonly id: string
  readonly cassettePath: string
  readonly mode: TapeMode
  readonly action: TapeAction
  readonly rerecordCommand: string
  /** The run serves real traffic and the tape changes nothing it does (see {@link TapeOptions.failOpen}). */
  readonly failOpen: boolean
  /** Where the run happens: in a test, a recorded command or a server (see {@link TapeOptions.runsIn}). */
  readonly runsIn: RunPlace

  private readonly options: TapeOptions
  /** What this run does with each decision: replay, record or pass through. */
  private readonly part: TapePart
  private readonly log = new RunLog()
  private readonly keys = new KeyHasher()
  private readonly lanes: Lanes
  private readonly envReads: EnvReads
  private readonly wires = new WireHasher()
  /** The fields keys leave out (see {@link TapeOptions.ignore}). */
  private readonly ignores: IgnorePaths
  /**
   * Whether requests are fingerprinted (see {@link beginRequest}): not with normalizers or
   * ignores, under which identical bytes key differently once the rules change, and whose
   * firings the run reports.
   */
  private readonly wiresOn: boolean
  /** How many decisions the run has asked for: the next one's `decisionIndex` is one more. */
  private asked = 0
  /** When the tape opened: what a paced replay may still wait is counted from here. */
  private readonly openedAt = performance.now()
  private finished: TapeState | undefined
  /** The part's place behind each place held for a request (see {@link reserveRequest}). */
  private readonly slots = new WeakMap<ReservedRequest, PartSlot>()
  /** Set as `finish()` begins: a decision asked for from then on comes from code the test did not await. */
  private finishing = false

  /**
   * The handle agent-tape's own boundaries and runners use (see {@link TapeInternals}); read it
   * with `tapeInternals(tape)` from `@agent-tape/core/internal`.
   */
  readonly [TAPE_INTERNALS]: TapeInternals = {
    beginRequest: (request) => this.beginRequest(request),
    reserveRequest: (kind) => this.reserveRequest(kind),
    wireReplays: () => this.part.wireReplays,
    replayWaitLeftMs: () => this.replayWaitLeftMs(),
    checkLive: (record, fn) => this.part.checkLive(record, fn),
    divergedRun: () => (this.log.divergences.length > 0 ? this.part.run() : undefined),
    completedRecording: () => this.part.recording(),
    openedCassette: () => this.part.opened(),
    recordedDecisions: () => this.part.replayable,
    adopt: (part) => this.part.adopt(part),
  }

  /** Opened by {@link openTape}, which resolves the mode and reads the cassette first. */
  constructor(
    options: TapeOptions,
    init: {
      mode: TapeMode
      /** Creates the part of the action opening the cassette decided, once for the whole run. */
      part(context: PartContext): TapePart
      harness: HarnessIdentity | undefined
      env: Record<string, string | undefined>
    },
  ) {
    this.options = options
    this.lanes = new Lanes(options.lane)
    this.ignores = new IgnorePaths(options.ignore ?? [])
    if (this.ignores.size > 0) this.log.ignored = {}
    this.id = options.id
    this.cassettePath = options.cassettePath
    this.mode = init.mode
    this.failOpen = options.failOpen === true
    this.runsIn = options.runsIn ?? (this.failOpen ? 'server' : 'test')
    this.rerecordCommand =
      options.rerecordCommand ?? `${MODE_ENV}=update <your test command> (only this test)`
    const divergence = {
      cassettePath: this.cassettePath,
      rerecordCommand: this.rerecordCommand,
      ...(options.resumeCommand ? { resumeCommand: options.resumeCommand } : {}),
      ...(options.viewCommand ? { viewCommand: options.viewCommand } : {}),
    }
    let secrets: SecretScanner | undefined
    this.part = init.part({
      options,
      mode: init.mode,
      divergence,
      log: this.log,
      keys: this.keys,
      // Made on first use: a run captured in a server that ends well never scans anything.
      get secrets() {
        secrets ??= new SecretScanner(secretEnvValues(init.env), options.allowSecrets ?? [])
        return secrets
      },
      harness: init.harness,
      ignores: this.ignores,
    })
    this.action = this.part.action
    this.wiresOn =
      this.action !== 'passthrough' && (options.normalizers ?? []).length === 0 && this.ignores.size === 0
    this.envReads = new EnvReads(this, init.env, () => this.part.envSalt)
  }

  /** The current step (model-request ordinal) of the calling lane. */
  get step(): number {
    return this.lanes.step
  }

  /**
   * The generic boundary: replays the recorded output of `fn` for this input, or runs `fn` and
   * records what it returned or threw. Kind `llm` starts a new step.
   */
  async call<T>(kind: string, input: unknown, fn: () => T | Promise<T>): Promise<Awaited<T>> {
    let decision: KeyedDecision | undefined
    try {
      decision = this.decide(kind, input)
    } catch (error) {
      // A run that serves real traffic goes on, unrecorded; its recording is incomplete.
      if (!this.failOpen) throw error
      this.reportDivergence(asTapeError(error))
      return await fn()
    }
    return decision ? this.part.call(decision, fn) : await fn()
  }

  /**
   * Low-level boundary for adapters whose outcome arrives later than the call returns (a
   * streamed HTTP response is handed to the caller while it is still being recorded).
   * Throws a {@link ReplayMiss} when replaying a decision that was never recorded. A decision
   * of another kind than `llm` that asks a model for an answer says so in `options` (see
   * {@link BeginOptions.asksModel}).
   */
  begin(kind: string, input: unknown, options: BeginOptions = {}): BegunDecision {
    const decision = this.decide(kind, input, undefined, undefined, options.asksModel === true)
    return decision ? this.part.begin(decision) : { action: 'passthrough', key: '' }
  }

  /**
   * For a boundary that sees the bytes of a request (the HTTP boundary): begins its decision as
   * {@link begin} does, and fingerprints the request as sent (see {@link WireRequest}). A
   * recording stores the fingerprint on the decision. A replay first looks for a recorded
   * decision with the same fingerprint and, while one with its key is left, takes it under that
   * key without computing the canonical input at all: identical bytes at one position give an
   * identical canonical input, so this cannot change which decision answers. Otherwise the
   * request is keyed as {@link begin} keys it, misses included. No fingerprints with
   * normalizers. Throws a {@link ReplayMiss} as {@link begin} does.
   */
  private beginRequest(request: WireRequest): BegunDecision {
    const { reserved } = request
    // What the function behind a decision does is part of it, even while that decision finishes.
    if (!reserved && isInsideDecision()) return { action: 'passthrough', key: '' }
    if (!reserved) this.assertOpen(request.kind)
    assertKind(request.kind)
    const lane = reserved ? reserved.lane : this.lanes.lane
    const digest = this.wiresOn ? this.wires.bodyDigest(lane, request.body) : undefined
    if (digest !== undefined && this.part.replayable.length > 0) {
      const position = this.lanes.peek(request.kind)
      const wire = wireFingerprint(request.kind, this.keyed(position), request.head, digest)
      const replayed = this.part.beginWire({
        kind: request.kind,
        wire,
        position,
        decisionIndex: this.nextDecisionIndex(),
      })
      if (replayed) {
        this.lanes.place(request.kind)
        this.asked++
        return replayed
      }
    }
    const { kind, input } = request.decide()
    const wireAt =
      digest === undefined
        ? undefined
        : (position: DecisionPosition) => wireFingerprint(kind, this.keyed(position), request.head, digest)
    const decision = this.decide(kind, input, wireAt, reserved)
    return decision ? this.part.begin(decision) : { action: 'passthrough', key: '' }
  }

  /**
   * Holds the place of a request sent now whose decision is made later, when the run is known to
   * be kept (see {@link ReservedRequest}); `undefined` when nothing is to be recorded here (not a
   * recording, inside a decision, or after the run ended), and the request is handled at once.
   */
  private reserveRequest(kind: string): ReservedRequest | undefined {
    if (this.finishing || isInsideDecision() || !isValidKind(kind)) return undefined
    const position = this.lanes.peek(kind)
    const slot = this.part.reserve(kind, position)
    if (!slot) return undefined
    this.lanes.place(kind)
    this.asked++
    const reserved: ReservedRequest = {
      kind,
      position,
      lane: this.lanes.lane,
      decisionIndex: this.asked,
      release: () => slot.release(),
    }
    this.slots.set(reserved, slot)
    return reserved
  }

  /**
   * Wraps one tool call: `await tape.tool('lookup_invoice', { id }, () => lookupInvoice(id))`.
   * When a stub is given it runs instead of `fn` while recording; replay runs neither.
   */
  async tool<T>(
    name: string,
    args: unknown,
    fn: () => T | Promise<T>,
    options: ToolOptions = {},
  ): Promise<Awaited<T>> {
    const { input, run } = toolDecision(name, args, fn, options)
    // A stub stands in for an irreversible tool in a test; a run serving real traffic runs it.
    return this.call('tool', input, this.failOpen ? fn : run)
  }

  /**
   * Wraps a whole tool map. Each tool keeps its parameters and returns a promise; its
   * arguments become the decision input, except the call context a framework passes last (see
   * {@link keyedToolArgs}). Irreversible tools must come with a stub.
   */
  tools<T extends Record<string, ToolDefinition>>(definitions: T): TapedTools<T> {
    return wrapTools(definitions, (name, args, fn, options) => this.tool(name, args, fn, options))
  }

  /**
   * Reads allowlisted environment variables. Their values are stored only as hashes; on
   * replay the current values are compared with the recorded ones and any drift fails the run.
   */
  env<K extends string>(keys: readonly K[]): Record<K, string | undefined> {
    return this.envReads.read(keys)
  }

  /**
   * Runs `fn` in its own lane: a separate step counter for a sub-agent, so sub-agents running
   * under `Promise.all` replay deterministically whatever order their requests arrive in.
   */
  lane<T>(name: string, fn: () => T): T {
    return this.lanes.run(name, fn)
  }

  /**
   * How many milliseconds a replay paced as recorded may still wait before the test's timeout
   * (see `testTimeoutMs`).
   */
  private replayWaitLeftMs(): number {
    const budget = this.options.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS
    return budget - (performance.now() - this.openedAt)
  }

  /**
   * The first divergence of the run (the one to fail the test with), once there is one: a
   * {@link ReplayMiss}, a {@link DivergenceError}, or what a boundary reported (a refused
   * connection); tell them apart by `code`, or with `isReplayMiss`.
   */
  failure(): AgentTapeError | undefined {
    return this.log.divergences[0]
  }

  /**
   * Records a problem an adapter found outside any decision (a request that escaped the
   * boundary), so that the test fails with it even when the code that saw the error swallows it.
   */
  reportDivergence(error: AgentTapeError): void {
    if (this.finished) this.options.onLateUse?.(error)
    else this.log.diverge(error)
  }

  /**
   * For a boundary that will not perform a decision this recording needs (a request that would
   * carry a placeholder instead of an API key): the test fails with `error`, and nothing is
   * written, as a cassette without that decision would only replay as a miss.
   */
  refuseRecording(error: AgentTapeError): void {
    this.reportDivergence(error)
    if (!this.finished) this.part.abandon()
  }

  /**
   * Notes something the user should fix that does not fail the run (a model request to a host
   * that is not configured); the runner's summary lists it with the tape. Said once per tape.
   */
  warn(message: string): void {
    this.log.warn(message)
  }

  /** Ends the run: checks unused decisions, env drift and harness, and writes a recording. */
  async finish(): Promise<TapeState> {
    if (this.finished) return this.finished
    this.finishing = true
    await runFinishHooks(this)
    const ending = await this.part.finish()
    this.finished = this.log.snapshot(this, this.part.tally(), ending)
    return this.finished
  }

  /** The tape's run state as plain data. */
  get state(): TapeState {
    return this.finished ?? this.log.snapshot(this, this.part.tally(), undefined)
  }

  /**
   * Keys a boundary crossing for the part to answer. Nothing to key inside an outer decision:
   * what a tool does at other boundaries is part of that decision's outcome.
   */
  private decide(
    kind: string,
    input: unknown,
    wireAt?: (position: DecisionPosition) => string,
    reserved?: ReservedRequest,
    asksModel = false,
  ): KeyedDecision | undefined {
    if (!reserved) {
      if (isInsideDecision()) return undefined
      this.assertOpen(kind)
    }
    assertKind(kind)
    // A held place keeps the step it was held at, whatever kind the request turned out to be.
    const position = reserved ? reserved.position : this.lanes.place(kind, asksModel)
    const { normalized, keyed, key } = this.log.walk(kind, () => {
      const normalized = this.normalize(kind, this.toInputData(input))
      const keyed = this.ignore(kind, normalized)
      return { normalized, keyed, key: this.keys.key(kind, keyed, this.keyed(position)) }
    })
    let label: string | undefined
    const decision: KeyedDecision = {
      kind,
      key,
      // Read when a report or the state names the decision, not on the way of every call.
      label: () => {
        label ??= describeDecision(kind, normalized)
        return label
      },
      position,
      asksModel: kind === 'llm' || asksModel,
      normalized,
      keyed,
      decisionIndex: reserved ? reserved.decisionIndex : this.nextDecisionIndex(),
    }
    if (reserved) decision.slot = this.slots.get(reserved)
    else this.asked++
    if (wireAt) decision.wire = wireAt(position)
    return decision
  }

  /** The position a decision is keyed at: without its step when the tape keys no steps (see `stepsInKeys`). */
  private keyed(position: DecisionPosition): DecisionPosition {
    return this.options.stepsInKeys === false ? { ...position, step: 0 } : position
  }

  /** The `decisionIndex` of the next decision the run asks for: they are counted from 1. */
  private nextDecisionIndex(): number {
    return this.asked + 1
  }

  private assertOpen(kind?: string): void {
    if (this.finishing) {
      const error = new AgentTapeError('ERR_TAPE_USAGE', {
        what: `${kind ? `A decision of kind "${kind}"` : 'A boundary call'} reached tape "${this.id}" after it finished`,
        why: 'the run had ended, and a request or tool call outlived its test (from a promise the test did not await), so nothing was sent and nothing recorded',
        fix: 'Await every agent call inside the test body',
      })
      this.options.onLateUse?.(error)
      throw error
    }
  }

  /**
   * The input as JSON data. A recording keeps it, so it gets its own copy (the caller may mutate
   * its objects later); a replay only keys it, so data that already is plain JSON is used as it is.
   */
  private toInputData(input: unknown): unknown {
    return this.part.keysInPlace ? asJsonData(input) : toJsonData(input)
  }

  /** The input the key hashes: without the fields the tape ignores, each match counted. */
  private ignore(kind: string, input: unknown): unknown {
    if (this.ignores.size === 0) return input
    const result = this.ignores.apply(kind, input)
    if (result.matched.length > 0) this.log.countIgnored(result.matched)
    return result.input
  }

  private normalize(kind: string, input: unknown): unknown {
    const rules = this.options.normalizers ?? []
    if (rules.length === 0) return input
    const result = applyNormalizers(kind, input, rules)
    this.log.countNormalizations(result.fired)
    return result.input
  }
}

/** What a paced replay may wait when no runner says how long the test may run. */
const DEFAULT_TEST_TIMEOUT_MS = 5 * 60_000

/** An error a tape threw, as a divergence that fails the tape. */
function asTapeError(error: unknown): AgentTapeError {
  if (isAgentTapeError(error)) return error
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: 'Cannot record a decision',
    why: error instanceof Error ? error.message : String(error),
    fix: 'The run went on without recording it; report this with the stack if it is not your input',
  })
}

function assertKind(kind: string): void {
  if (!isValidKind(kind)) {
    throw new ConfigError({
      what: `Invalid boundary kind ${JSON.stringify(kind)}`,
      why: 'a kind is 1 to 32 lowercase letters, digits, "-" or "_", starting with a letter',
      fix: 'Use a kind such as "llm", "tool", "http" or "search"',
    })
  }
}
