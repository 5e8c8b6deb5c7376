import type { EncodedInput } from './cassette-encoding.js'
import type { DecisionRecord } from './cassette-format.js'
import { describeDecision, rememberLabel } from './describe-decision.js'
import { applyPatchOwned, type PatchOp, type PathStep } from './json-patch.js'

/** A patched input of a loaded decision: the decision it applies to, and the patch. */
interface PatchedInput {
  base: DecisionRecord
  patch: readonly PatchOp[]
}

/** The input of the latest decision of a lane, as loading goes, with the containers it owns. */
interface LaneInput {
  record: DecisionRecord
  value: unknown
  owned: Set<object>
}

/**
 * Loads the inputs of a cassette's decisions, in file order. A whole input is kept as read. A
 * patched one is checked by applying its patch to a working copy of its lane's input (modified in
 * place, so a history that grows by one message a step costs one message a step), and is rebuilt
 * from its chain of patches only when read: holding every decision's whole input at once would
 * take memory that grows with the square of a long run (10,000 appended messages, 50 million
 * array slots), where the file grows linearly.
 */
export class CassetteInputs {
  /** The encoding as read: what {@link encodeInputs} gives for a cassette written by this version. */
  readonly encoded: EncodedInput[] = []
  /** The patched input of each decision, by `seq - 1`; undefined for a whole one. */
  private readonly patches: (PatchedInput | undefined)[] = []
  private readonly lanes = new Map<string, LaneInput>()
  /** The input read last, from which the next one read may be rebuilt (reads often go in order). */
  private last: { record: DecisionRecord; value: unknown } | undefined

  /** A decision whose line holds its input whole. */
  whole(record: DecisionRecord): void {
    this.encoded.push({ in: record.in })
    this.patches.push(undefined)
    this.lanes.set(laneOf(record), { record, value: record.in, owned: new Set() })
  }

  /**
   * A decision whose line holds a patch over `base`'s input. Throws a `PatchError` when the patch
   * does not apply. Defines the record's `in` as the rebuilt input.
   */
  patched(record: DecisionRecord, base: DecisionRecord, patch: readonly PatchOp[]): void {
    const lane = laneOf(record)
    let work = this.lanes.get(lane)
    if (!work || work.record !== base) {
      // A base other than the latest of its lane (a writer may pick any earlier one).
      const owned = new Set<object>()
      work = { record: base, value: this.rebuild(base, owned), owned }
    }
    const at: PathStep[][] = []
    work.value = applyPatchOwned(work.value, patch, work.owned, at)
    work.record = record
    this.lanes.set(lane, work)
    this.encoded.push({
      base: base.seq,
      patch: patch as PatchOp[],
      ops: patch.map((op, i) => ({ op, at: at[i]! })),
    })
    this.patches.push({ base, patch })
    // Read now, while the input is at hand: reports name every decision of a run.
    rememberLabel(record, describeDecision(record.kind, work.value))
    Object.defineProperty(record, 'in', {
      get: () => this.read(record),
      set: (value: unknown) =>
        Object.defineProperty(record, 'in', { value, writable: true, enumerable: true, configurable: true }),
      enumerable: true,
      configurable: true,
    })
  }

  /** Ends loading: the working copies are let go. */
  done(): EncodedInput[] {
    this.lanes.clear()
    return this.encoded
  }

  private read(record: DecisionRecord): unknown {
    if (this.last?.record === record) return this.last.value
    const value = this.rebuild(record, new Set())
    this.last = { record, value }
    return value
  }

  /**
   * The input of `record`, from the nearest input at hand along its chain of bases (the one read
   * last, or a whole one): its patches applied in order to containers copied once.
   */
  private rebuild(record: DecisionRecord, owned: Set<object>): unknown {
    const chain: PatchedInput[] = []
    let start: unknown
    for (let at: DecisionRecord = record; ; ) {
      if (this.last?.record === at) {
        start = this.last.value
        break
      }
      const patched = this.patches[at.seq - 1]
      if (!patched) {
        start = at.in
        break
      }
      chain.push(patched)
      at = patched.base
    }
    let value = start
    for (let i = chain.length - 1; i >= 0; i--) value = applyPatchOwned(value, chain[i]!.patch, owned)
    return value
  }
}

/** A copy of a recorded decision under another `seq`, its input still read as the original's is. */
export function renumbered(record: DecisionRecord, seq: number): DecisionRecord {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(record)) as DecisionRecord
  copy.seq = seq
  return copy
}

/** The inputs' lane of a decision: its kind and lane (the main lane when it has none). */
export function laneOf(d: { kind: string; lane?: string | undefined }): string {
  return d.lane === undefined ? `${d.kind}\n` : `${d.kind}\n\n${d.lane}`
}
