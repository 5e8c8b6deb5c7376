import { decisionLabel } from './describe-decision.js'
import { type AgentTapeError, deepInputError, isStackOverflow } from './errors.js'
import type { ToolDrift } from './live-tools.js'
import type { KeyedDecision, PartEnding, PartTally } from './tape-part.js'
import type { DecisionState, DecisionStatus, TapeState } from './tape-state.js'

/**
 * What happened in one run, as `tape.state` reports it: how each decision ended up, the
 * divergences (the first one fails the test), warnings, drifted tools and the normalizers that
 * fired. The tape and the part of its action write here; the state is a snapshot of it.
 */
export class RunLog {
  readonly #decisions: DecisionState[] = []
  /** What fails the run, first first: misses, divergences found as it ends, what a boundary refused. */
  readonly divergences: AgentTapeError[] = []
  readonly warnings: string[] = []
  /** Tools whose live result differed from the recording (`live-tools` mode). */
  readonly drifts: string[] = []
  readonly normalizations: Record<string, number> = {}
  /** Per ignore path, the decisions it left a field out of; `undefined` for a tape without ignores. */
  ignored: Record<string, number> | undefined
  /** Labels still to read, of decisions noted with a function for a label (see {@link note}). */
  private readonly unlabelled = new Map<DecisionState, () => string>()

  /**
   * Notes how a decision of this run ended up, under its number in the cassette (or in the run).
   * `label` may be a function, read when the state is first reported rather than on the way of
   * every replayed request.
   */
  note(
    decision: Omit<KeyedDecision, 'label' | 'normalized' | 'keyed' | 'asksModel'> & {
      label: string | (() => string)
      asksModel?: boolean
    },
    seq: number,
    status: DecisionStatus,
  ): void {
    const { key, kind, position, label } = decision
    const state: DecisionState = {
      seq,
      key,
      kind,
      ...position,
      asksModel: decision.asksModel ?? kind === 'llm',
      label: typeof label === 'string' ? label : '',
      status,
    }
    if (typeof label === 'function') this.unlabelled.set(state, label)
    this.#decisions.push(state)
  }

  /** How each decision of the run so far ended up, in the order the run asked for them, labelled. */
  get decisions(): readonly DecisionState[] {
    if (this.unlabelled.size > 0) {
      for (const [state, label] of this.unlabelled) state.label = label()
      this.unlabelled.clear()
    }
    return this.#decisions
  }

  diverge(error: AgentTapeError): void {
    this.divergences.push(error)
  }

  /** Notes something to fix that does not fail the run, once. */
  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message)
  }

  drift(drift: ToolDrift): void {
    this.drifts.push(drift.label)
    this.divergences.push(drift.error)
  }

  countIgnored(matched: readonly string[]): void {
    this.ignored ??= {}
    const ignored = this.ignored
    for (const path of matched) ignored[path] = (ignored[path] ?? 0) + 1
  }

  countNormalizations(fired: readonly string[]): void {
    for (const name of fired) this.normalizations[name] = (this.normalizations[name] ?? 0) + 1
  }

  /**
   * Runs `fn`, which walks a decision's input, turning the engine's stack overflow on an input
   * nested thousands of levels deep into an error that says so, and fails the run with it.
   */
  walk<T>(kind: string, fn: () => T): T {
    try {
      return fn()
    } catch (error) {
      if (!isStackOverflow(error)) throw error
      const refused = deepInputError(kind, error)
      this.divergences.push(refused)
      throw refused
    }
  }

  /** The state of the run: `running` until the part's `ending` is known. */
  snapshot(
    head: Pick<TapeState, 'id' | 'cassettePath' | 'mode' | 'action'>,
    tally: PartTally,
    ending: PartEnding | undefined,
  ): TapeState {
    const decisions: DecisionState[] = [...this.decisions]
    for (const d of tally.unused) {
      const label = decisionLabel(d)
      decisions.push({
        seq: d.seq,
        key: d.key,
        kind: d.kind,
        step: d.step,
        lane: d.lane,
        // What the cassette says of a decision no run asked for: its kind.
        asksModel: d.kind === 'llm',
        label,
        status: 'unused',
      })
    }
    return {
      id: head.id,
      cassettePath: head.cassettePath,
      mode: head.mode,
      action: head.action,
      status: ending?.status ?? 'running',
      inCassette: tally.inCassette,
      replayed: tally.replayed,
      recorded: tally.recorded,
      missed: tally.missed,
      unused: tally.unused.length,
      written: ending?.written ?? false,
      ...(ending?.writeSkipped ? { writeSkipped: ending.writeSkipped } : {}),
      normalizations: { ...this.normalizations },
      ...(this.ignored ? { ignored: { ...this.ignored } } : {}),
      warnings: [...this.warnings],
      drifted: [...this.drifts],
      divergences: this.divergences.map((d) => ({ code: d.code, message: d.message })),
      decisions,
    }
  }
}
