import { AsyncLocalStorage } from 'node:async_hooks'
import { type DecisionKey, type DecisionPosition, isValidKind, KEY_SCHEME_VERSION } from './canonical-key.js'
import {
  CASSETTE_FORMAT_VERSION,
  type Cassette,
  type DecisionRecord,
  isSameRecording,
  serializeCassette,
} from './cassette-format.js'
import { describeDecision, describePosition } from './describe-decision.js'
import { createDivergence, type DivergenceError, explainMiss, ReplayMiss } from './divergence.js'
import { createEnvSalt, describeEnvChange, envSummary, hashEnvValue } from './env-hash.js'
import { AgentTapeError, ConfigError, deepInputError, isStackOverflow } from './errors.js'
import { formatMessage } from './format-message.js'
import { compareHarness, type HarnessIdentity } from './harness.js'
import { asJsonData, toJsonData } from './json-walk.js'
import { KeyHasher } from './key-hasher.js'
import { LIVE_KINDS, runToolLive } from './live-tools.js'
import { MODE_ENV, type TapeMode } from './modes.js'
import { applyNormalizers } from './normalize.js'
import { replayOutcome, toRecordedError } from './recorded-error.js'
import { applyRedactors } from './redaction.js'
import { ReplayIndex } from './replay-index.js'
import { checkRun } from './run-checks.js'
import { scanCassette } from './secret-scan.js'
import { SecretScanner, secretEnvValues } from './secrets/index.js'
import { isInsideDecision, runInsideDecision } from './tape-context.js'
import type { BegunDecision, TapeOptions } from './tape-options.js'
import type { DecisionState, TapeAction, TapeState } from './tape-state.js'
import {
  assertEffect,
  resolveToolSpec,
  type TapedTools,
  type ToolDefinition,
  type ToolOptions,
} from './tools.js'
import { AGENT_TAPE_VERSION } from './version.js'

interface Lane {
  path: string
}

interface Pending {
  record: DecisionRecord
  done: Promise<void>
}

/**
 * Records or replays the boundaries of one run. Create it with {@link openTape}, route each
 * boundary through it, then call {@link Tape.finish} when the run ends.
 *
 * @example
 * const tape = await openTape({ id: 'issue-412', cassettePath, store })
 * const tools = tape.tools({ lookup_invoice, refund: { run: refund, effect: 'irreversible', stub: fakeRefund } })
 * const reply = await tape.call('llm', { messages, tools: schemas }, () => model(messages))
 * await tape.finish()
 * const failure = tape.failure() // a ReplayMiss or DivergenceError, or undefined
 */
export class Tape {
  readonly id: string
  readonly cassettePath: string
  readonly mode: TapeMode
  readonly action: TapeAction
  readonly rerecordCommand: string

  private readonly options: TapeOptions
  private readonly environment: Record<string, string | undefined>
  private readonly secrets: SecretScanner
  /** Salts the env hashes of this cassette, so a published cassette is no dictionary of weak values. */
  private readonly envSalt: string | undefined
  /** Whether two model requests of one lane were in flight together in this recording. */
  private overlapped = false
  /** Tools whose live result differed from the recording (`live-tools` mode). */
  private readonly drifts: string[] = []
  private readonly index: ReplayIndex | undefined
  private readonly existing: Cassette | undefined
  private readonly harness: HarnessIdentity | undefined
  private readonly lanes = new AsyncLocalStorage<Lane>()
  private readonly activeLanes = new Set<string>()
  private readonly steps = new Map<string, number>()
  private readonly records: DecisionRecord[] = []
  private readonly pending = new Set<Pending>()
  private readonly runDecisions: DecisionState[] = []
  private readonly misses: ReplayMiss[] = []
  private readonly divergences: (ReplayMiss | DivergenceError)[] = []
  private readonly warnings: string[] = []
  private readonly normalizations: Record<string, number> = {}
  private readonly keys = new KeyHasher()
  private made = 0
  private finished: TapeState | undefined

  /** @internal use {@link openTape} */
  constructor(
    options: TapeOptions,
    init: {
      mode: TapeMode
      action: TapeAction
      existing: Cassette | undefined
      harness: HarnessIdentity | undefined
      env: Record<string, string | undefined>
    },
  ) {
    this.options = options
    this.id = options.id
    this.cassettePath = options.cassettePath
    this.mode = init.mode
    this.action = init.action
    this.environment = init.env
    this.secrets = new SecretScanner(secretEnvValues(init.env), options.allowSecrets ?? [])
    this.existing = init.existing
    this.envSalt =
      init.action === 'record'
        ? (init.existing?.header.envSalt ?? createEnvSalt())
        : init.existing?.header.envSalt
    this.harness = init.harness
    this.rerecordCommand =
      options.rerecordCommand ?? `${MODE_ENV}=update <your test command> (only this test)`
    this.index =
      init.action === 'replay' && init.existing ? new ReplayIndex(init.existing.decisions) : undefined
  }

  /** The current step (model-request ordinal) of the calling lane. */
  get step(): number {
    return this.steps.get(this.currentLane()) ?? 0
  }

  /**
   * The generic boundary: replays the recorded output of `fn` for this input, or runs `fn` and
   * records what it returned or threw. Kind `llm` starts a new step.
   */
  async call<T>(kind: string, input: unknown, fn: () => T | Promise<T>): Promise<Awaited<T>> {
    const decision = this.begin(kind, input)
    if (decision.action === 'passthrough') return await fn()
    if (decision.action === 'replay') {
      if (this.mode === 'live-tools' && LIVE_KINDS.has(kind)) await this.checkLive(decision.record, fn)
      return replayOutcome(decision.record) as Awaited<T>
    }
    const started = performance.now()
    try {
      const value = await runInsideDecision(fn)
      decision.complete({ out: toJsonData(value) }, performance.now() - started)
      return value
    } catch (error) {
      decision.complete({ err: toRecordedError(error) }, performance.now() - started)
      throw error
    }
  }

  /**
   * Low-level boundary for adapters whose outcome arrives later than the call returns (a
   * streamed HTTP response is handed to the caller while it is still being recorded).
   * Throws a {@link ReplayMiss} when replaying a decision that was never recorded.
   */
  begin(kind: string, input: unknown): BegunDecision {
    this.assertOpen()
    // Part of an outer decision's outcome (a tool's own request): neither recorded nor replayed.
    if (isInsideDecision()) return { action: 'passthrough', key: '' }
    if (!isValidKind(kind)) {
      throw new ConfigError({
        what: `Invalid boundary kind ${JSON.stringify(kind)}`,
        why: 'a kind is 1 to 32 lowercase letters, digits, "-" or "_", starting with a letter',
        fix: 'Use a kind such as "llm", "tool", "http" or "search"',
      })
    }
    const lane = this.currentLane()
    if (kind === 'llm') this.steps.set(lane, (this.steps.get(lane) ?? 0) + 1)
    const step = this.steps.get(lane) ?? 0
    const position = lane === '' ? { step } : { step, lane }
    const { normalized, key, label } = this.walkable(kind, () => {
      const normalized = this.normalize(kind, this.toInputData(input))
      return {
        normalized,
        key: this.keys.key(kind, normalized, position),
        label: describeDecision(kind, normalized),
      }
    })
    const decisionIndex = ++this.made
    if (this.action === 'passthrough') {
      this.runDecisions.push({ seq: decisionIndex, key, kind, ...position, label, status: 'passthrough' })
      return { action: 'passthrough', key }
    }
    if (this.action === 'replay') {
      const record = this.index!.take(key)
      if (record) {
        this.runDecisions.push({ seq: record.seq, key, kind, ...position, label, status: 'replayed' })
        return { action: 'replay', key, record }
      }
      throw this.registerMiss({ kind, key, label, decisionIndex, ...position }, normalized)
    }
    const record: DecisionRecord = {
      seq: this.records.length + 1,
      key,
      kind,
      ...position,
      ms: 0,
      in: this.walkable(kind, () => this.redact(normalized)),
    }
    this.records.push(record)
    this.runDecisions.push({ seq: record.seq, key, kind, ...position, label, status: 'recorded' })
    if (kind === 'llm') this.noteOverlap(record)
    let resolve!: () => void
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
      },
    }
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
    assertEffect(name, options.effect, options.stub)
    const input =
      options.idempotencyKey === undefined
        ? { name, args }
        : { name, args, idempotencyKey: options.idempotencyKey }
    const run = (options.stub ?? fn) as () => T | Promise<T>
    return this.call('tool', input, run)
  }

  /**
   * Wraps a whole tool map. Each tool keeps its parameters and returns a promise; its
   * arguments become the decision input, except the call context a framework passes last (see
   * {@link keyedToolArgs}). Irreversible tools must come with a stub.
   */
  tools<T extends Record<string, ToolDefinition>>(definitions: T): TapedTools<T> {
    const wrapped: Record<string, (...args: unknown[]) => Promise<unknown>> = {}
    for (const [name, definition] of Object.entries(definitions)) {
      const spec = resolveToolSpec(name, definition)
      wrapped[name] = (...args: unknown[]) => {
        const options: ToolOptions = {}
        if (spec.effect) options.effect = spec.effect
        if (spec.stub) options.stub = () => spec.stub!(...args)
        if (spec.idempotencyKey) options.idempotencyKey = spec.idempotencyKey(...args)
        return this.tool(name, keyedToolArgs(args), () => spec.run(...args), options)
      }
    }
    return wrapped as TapedTools<T>
  }

  /**
   * Reads allowlisted environment variables. Their values are stored only as hashes; on
   * replay the current values are compared with the recorded ones and any drift fails the run.
   */
  env<K extends string>(keys: readonly K[]): Record<K, string | undefined> {
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string' || k === '')) {
      throw new ConfigError({
        what: 'Invalid tape.env() call',
        why: `it takes an array of variable names, got ${JSON.stringify(keys)}`,
        fix: "Call it as tape.env(['OPENAI_MODEL', 'FEATURE_FLAGS'])",
      })
    }
    const sorted = [...new Set(keys)].sort()
    const values = Object.fromEntries(sorted.map((k) => [k, this.environment[k]])) as Record<
      K,
      string | undefined
    >
    const hashes = Object.fromEntries(sorted.map((k) => [k, hashEnvValue(this.environment[k], this.envSalt)]))
    const decision = this.begin('env', { keys: sorted })
    if (decision.action === 'record') decision.complete({ out: hashes }, 0)
    if (decision.action === 'replay') this.compareEnv(decision.record, hashes)
    return values
  }

  /**
   * Runs `fn` in its own lane: a separate step counter for a sub-agent, so sub-agents running
   * under `Promise.all` replay deterministically whatever order their requests arrive in.
   */
  lane<T>(name: string, fn: () => T): T {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      throw new ConfigError({
        what: `Invalid lane name ${JSON.stringify(name)}`,
        why: 'a lane name is 1 to 64 letters, digits, ".", "-" or "_"',
        fix: 'Name the lane after the sub-agent, e.g. tape.lane("researcher", () => research(topic))',
      })
    }
    const parent = this.currentLane()
    const path = parent === '' ? name : `${parent}/${name}`
    if (this.activeLanes.has(path)) {
      throw new ConfigError({
        what: `Lane ${JSON.stringify(path)} is already running`,
        why: 'two concurrent lanes with one name would share a step counter, and their order would decide the keys',
        fix: 'Give concurrent lanes distinct names, e.g. worker-1 and worker-2',
      })
    }
    this.activeLanes.add(path)
    let result: T
    try {
      result = this.lanes.run({ path }, fn)
    } catch (error) {
      this.activeLanes.delete(path)
      throw error
    }
    if (result instanceof Promise) {
      return result.finally(() => this.activeLanes.delete(path)) as T
    }
    this.activeLanes.delete(path)
    return result
  }

  /** The first divergence of the run (the one to fail the test with), once there is one. */
  failure(): ReplayMiss | DivergenceError | undefined {
    return this.divergences[0]
  }

  /**
   * Records a problem an adapter found outside any decision (a request that escaped the
   * boundary), so that the test fails with it even when the code that saw the error swallows it.
   */
  reportDivergence(error: AgentTapeError): void {
    this.divergences.push(error as DivergenceError)
  }

  /**
   * Notes something the user should fix that does not fail the run (a model request to a host
   * that is not configured); the runner's summary lists it with the tape. Said once per tape.
   */
  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message)
  }

  /** Ends the run: checks unused decisions, env drift and harness, and writes a recording. */
  async finish(): Promise<TapeState> {
    if (this.finished) return this.finished
    let written = false
    let writeSkipped: TapeState['writeSkipped']
    if (this.action === 'record') {
      await this.settlePending()
      written = await this.write()
      if (!written) writeSkipped = 'unchanged'
    } else {
      writeSkipped = this.action === 'replay' ? 'replay' : 'passthrough'
    }
    if (this.action === 'replay' && this.index) {
      for (const divergence of checkRun(this.index, this.context(), this.options.failOnUnused !== false)) {
        this.divergences.push(divergence)
      }
      this.checkHarness()
    }
    this.finished = this.snapshot(written, writeSkipped)
    return this.finished
  }

  /** The decisions of the cassette this tape replays (none when it records or passes through). */
  get recordedDecisions(): readonly DecisionRecord[] {
    return this.index?.decisions ?? []
  }

  /** The tape's run state as plain data. */
  get state(): TapeState {
    return this.finished ?? this.snapshot(false, undefined)
  }

  private snapshot(written: boolean, writeSkipped: TapeState['writeSkipped']): TapeState {
    const unused = this.index?.unused() ?? []
    const decisions: DecisionState[] = [...this.runDecisions]
    for (const d of unused) {
      const label = describeDecision(d.kind, d.in)
      decisions.push({
        seq: d.seq,
        key: d.key,
        kind: d.kind,
        step: d.step,
        lane: d.lane,
        label,
        status: 'unused',
      })
    }
    return {
      id: this.id,
      cassettePath: this.cassettePath,
      mode: this.mode,
      action: this.action,
      status: this.finishedStatus(written || writeSkipped !== undefined),
      inCassette: this.action === 'replay' ? (this.existing?.decisions.length ?? 0) : 0,
      replayed: this.index?.consumed ?? 0,
      captured: this.records.length,
      missed: this.misses.length,
      unused: unused.length,
      written,
      ...(writeSkipped ? { writeSkipped } : {}),
      normalizations: { ...this.normalizations },
      warnings: [...this.warnings],
      drifted: [...this.drifts],
      divergences: this.divergences.map((d) => ({ code: d.code, message: d.message })),
      decisions,
    }
  }

  private finishedStatus(done: boolean): TapeState['status'] {
    if (!done) return 'running'
    if (this.action === 'passthrough') return 'passthrough'
    if (this.action === 'record') return 'recorded'
    return this.divergences.length > 0 ? 'diverged' : 'clean'
  }

  /**
   * Runs `fn`, which walks a decision's input, turning the engine's stack overflow on an input
   * nested thousands of levels deep into an error that says so, and fails the run with it.
   */
  private walkable<T>(kind: string, fn: () => T): T {
    try {
      return fn()
    } catch (error) {
      if (!isStackOverflow(error)) throw error
      const refused = deepInputError(kind, error)
      this.divergences.push(refused as DivergenceError)
      throw refused
    }
  }

  private currentLane(): string {
    return this.lanes.getStore()?.path ?? ''
  }

  private assertOpen(): void {
    if (this.finished) {
      throw new AgentTapeError('ERR_TAPE_USAGE', {
        what: `Tape "${this.id}" is already finished`,
        why: 'a boundary was called after the run ended (a request or tool call that outlived its test)',
        fix: 'Await every agent call inside the test body',
      })
    }
  }

  /**
   * The input as JSON data. A recording keeps it, so it gets its own copy (the caller may mutate
   * its objects later); a replay only keys it, so data that already is plain JSON is used as it
   * is, unless a normalizer function could change it in place.
   */
  private toInputData(input: unknown): unknown {
    const inPlace =
      this.action === 'replay' && !(this.options.normalizers ?? []).some((rule) => 'apply' in rule)
    return inPlace ? asJsonData(input) : toJsonData(input)
  }

  private normalize(kind: string, input: unknown): unknown {
    const rules = this.options.normalizers ?? []
    if (rules.length === 0) return input
    const result = applyNormalizers(kind, input, rules)
    for (const name of result.fired) this.normalizations[name] = (this.normalizations[name] ?? 0) + 1
    return result.input
  }

  private redact(input: unknown): unknown {
    return applyRedactors(this.secrets.redactJson(input), this.options.redactors ?? [])
  }

  private context() {
    return { cassettePath: this.cassettePath, rerecordCommand: this.rerecordCommand }
  }

  /**
   * While recording: a model request that starts while another of the same lane is still in
   * flight. Concurrent branches without lanes take their steps in the order their requests
   * happen to start, which a replay need not repeat.
   */
  private noteOverlap(record: DecisionRecord): void {
    const overlapping = [...this.pending].find(
      (p) => p.record.kind === 'llm' && p.record.lane === record.lane,
    )
    if (!overlapping) return
    this.overlapped = true
    const where = record.lane === undefined ? '' : ` in lane ${JSON.stringify(record.lane)}`
    this.warn(
      formatMessage({
        what: `Model requests overlapped while recording${where} (steps ${overlapping.record.step} and ${record.step} were in flight together)`,
        why: 'concurrent branches that share a lane take their step numbers in the order their requests start, so a replay that starts them in another order misses',
        fix: "Run each concurrent sub-agent in its own lane, tape.lane('researcher', () => research(topic)), and re-record",
      }),
    )
  }

  private registerMiss(
    miss: { kind: string; key: DecisionKey; label: string; decisionIndex: number } & DecisionPosition,
    normalized: unknown,
  ): ReplayMiss {
    const index = this.index!
    const input = this.redact(normalized)
    // The same request, recorded at another step of this lane: concurrent branches took their
    // steps in another order than while recording.
    const moved = index
      .unused()
      .find(
        (d) =>
          d.kind === miss.kind &&
          d.lane === miss.lane &&
          d.step !== miss.step &&
          d.key ===
            this.keys.key(
              miss.kind,
              normalized,
              d.lane === undefined ? { step: d.step } : { step: d.step, lane: d.lane },
            ),
      )
    const nearest = moved ?? index.nearest(miss.kind, miss.step, miss.lane, input)
    const details = explainMiss(
      { ...miss, total: index.total, replayedBefore: index.consumed },
      input,
      nearest,
    )
    if (moved) {
      details.hint = `this very request was recorded at ${describePosition(moved.step, moved.lane)}, not ${describePosition(miss.step, miss.lane)}: concurrent branches took their step numbers in another order than while recording. Run each concurrent sub-agent in its own lane, tape.lane('researcher', () => research(topic)), and re-record.`
    } else if (nearest && miss.kind === 'llm' && this.overlappedInRecording()) {
      details.hint = `model requests overlapped while this cassette was recorded, so the nearest recorded request (#${nearest.seq}) may belong to another concurrent branch. Run each concurrent sub-agent in its own lane, tape.lane('researcher', () => research(topic)), and re-record.`
    }
    const error = new ReplayMiss(details, this.context())
    this.misses.push(error)
    this.divergences.push(error)
    const { decisionIndex, kind, key, label, ...position } = miss
    this.runDecisions.push({ seq: decisionIndex, key, kind, ...position, label, status: 'missed' })
    return error
  }

  /**
   * `live-tools`: runs a recorded tool for real (`fn`) and compares its result with the
   * recording. A drift fails the run; the caller goes on with the recorded result, so that every
   * drifted tool of the run is reported and the model decisions after it still replay. For
   * adapters that run tools themselves (the MCP transport).
   */
  async checkLive(record: DecisionRecord, fn: () => unknown): Promise<void> {
    const drift = await runToolLive(record, fn, {
      cassettePath: this.cassettePath,
      rerecordCommand: this.rerecordCommand,
      normalizers: this.options.normalizers ?? [],
      decisions: this.existing?.decisions ?? [],
    })
    if (!drift) return
    this.drifts.push(drift.label)
    this.divergences.push(drift.error)
  }

  /** Whether two model requests of one lane were in flight together while the cassette was recorded. */
  private overlappedInRecording(): boolean {
    return this.existing?.header.overlapped === true
  }

  private compareEnv(record: DecisionRecord, now: Record<string, string | null>): void {
    const before = (record.out ?? {}) as Record<string, string | null>
    const drift = Object.keys(now).filter((k) => before[k] !== now[k])
    if (drift.length === 0) return
    const lines = drift.map(
      (k) => `  ${k.padEnd(20)} ${describeEnvChange(before[k] ?? null, now[k] ?? null)}`,
    )
    this.divergences.push(
      createDivergence('ERR_TAPE_ENV_DRIFT', {
        what: `Environment drift at step ${record.step}`,
        why: `${drift.length} of ${Object.keys(now).length} environment values read through tape.env() differ from the recording (values are compared by hash)`,
        fix: `Restore the recorded environment, or re-record this test: ${this.rerecordCommand}`,
        details: [`  cassette  ${this.cassettePath}`, '', ...lines],
      }),
    )
  }

  private checkHarness(): void {
    const provider = this.options.harness
    if (!provider || !this.harness) return
    const comparison = compareHarness(this.existing?.header.harness, this.harness)
    if (comparison.matches) {
      if (comparison.note && provider.paths?.length) this.warnings.push(comparison.note)
      return
    }
    const divergence = createDivergence('ERR_TAPE_HARNESS', {
      what: 'Harness mismatch',
      why: `this cassette was recorded under a different agent harness: ${comparison.note}`,
      fix: `Re-record this test if the recording no longer describes the code path: ${this.rerecordCommand}`,
      details: [`  cassette  ${this.cassettePath}`],
    })
    if (provider.strict) this.divergences.push(divergence)
    else this.warnings.push(divergence.message)
  }

  private async settlePending(): Promise<void> {
    if (this.pending.size === 0) return
    const timeout = this.options.pendingTimeoutMs ?? 10_000
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeout)
    })
    const result = await Promise.race([Promise.all([...this.pending].map((p) => p.done)), expired])
    clearTimeout(timer)
    if (result === 'timeout') {
      const seqs = [...this.pending].map((p) => `#${p.record.seq} ${p.record.key}`).join(', ')
      throw new AgentTapeError('ERR_TAPE_USAGE', {
        what: `Cannot write cassette ${this.cassettePath}`,
        why: `decisions ${seqs} were still in flight ${timeout} ms after the run ended (a response body that was never read to the end?)`,
        fix: 'Consume or cancel every response inside the test, or raise pendingTimeoutMs',
      })
    }
  }

  private async write(): Promise<boolean> {
    const env = envSummary(this.records)
    const header = {
      agentTape: CASSETTE_FORMAT_VERSION,
      keyScheme: KEY_SCHEME_VERSION,
      test: this.id,
      recordedAt: new Date().toISOString(),
      ...(this.harness ? { harness: this.harness } : {}),
      runtime: { node: process.version, platform: process.platform, agentTape: AGENT_TAPE_VERSION },
      ...(this.options.sdks ? { sdks: this.options.sdks } : {}),
      ...(env ? { envSalt: this.envSalt, env } : {}),
      ...(this.overlapped ? { overlapped: true as const } : {}),
    }
    const cassette: Cassette = { header, decisions: this.records }
    scanCassette(cassette, this.cassettePath, this.secrets)
    if (this.existing && isSameRecording(this.existing, cassette)) return false
    await this.options.store.write(this.cassettePath, serializeCassette(cassette))
    return true
  }
}

/**
 * The arguments of a wrapped tool call that key it: all of them but a trailing call context
 * that frameworks add and that says nothing about what the tool does. The ai SDK passes
 * `{ toolCallId, messages, abortSignal }` to `execute`, and keying on it would tie every tool
 * call to the whole conversation so far and to a provider's generated id; an `AbortSignal` is
 * not data. The tool itself still receives every argument.
 */
export function keyedToolArgs(args: readonly unknown[]): unknown[] {
  const last = args.at(-1)
  return isCallContext(last) ? args.slice(0, -1) : [...args]
}

function isCallContext(value: unknown): boolean {
  if (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) return true
  if (typeof value !== 'object' || value === null) return false
  const context = value as { toolCallId?: unknown; messages?: unknown }
  return typeof context.toolCallId === 'string' && Array.isArray(context.messages)
}
