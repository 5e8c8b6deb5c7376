import type { DecisionRecord } from './cassette-format.js'
import { diffJson } from './json-diff.js'

/**
 * The recorded decisions of a cassette, indexed for replay: one FIFO queue per key, so the
 * Nth identical request gets the Nth recorded output, while decisions with distinct keys can
 * arrive in any order (parallel tool calls of one model turn replay whatever their timing).
 */
export class ReplayIndex {
  readonly total: number
  private readonly queues = new Map<string, DecisionRecord[]>()
  private readonly used = new Set<number>()
  /**
   * The key each recorded fingerprint was keyed under; `null` when decisions with one
   * fingerprint carry different keys (a cassette edited by hand), which then never skips keying.
   */
  private readonly wireKeys = new Map<string, string | null>()

  constructor(readonly decisions: readonly DecisionRecord[]) {
    this.total = decisions.length
    for (const decision of decisions) {
      const queue = this.queues.get(decision.key)
      if (queue) queue.push(decision)
      else this.queues.set(decision.key, [decision])
      if (decision.wire !== undefined) {
        const known = this.wireKeys.get(decision.wire)
        if (known === undefined) this.wireKeys.set(decision.wire, decision.key)
        else if (known !== decision.key) this.wireKeys.set(decision.wire, null)
      }
    }
  }

  /**
   * Takes the next recorded decision with the key that a request with this fingerprint was
   * recorded under: the one {@link take} would give once the request is keyed, since identical
   * bytes at one position key identically. `undefined` when the fingerprint is unknown or its
   * key has no recorded decision left; the request is then keyed (and may miss).
   */
  takeWire(wire: string): DecisionRecord | undefined {
    const key = this.wireKeys.get(wire)
    return key ? this.take(key) : undefined
  }

  /** Takes the next recorded decision with this key, or `undefined` on a miss. */
  take(key: string): DecisionRecord | undefined {
    const decision = this.queues.get(key)?.shift()
    if (decision) this.used.add(decision.seq)
    return decision
  }

  /** Counts a recorded decision as used that another process of the run replayed (see `TapeInternals.adopt`). */
  markUsed(seq: number): void {
    if (this.decisions.some((d) => d.seq === seq)) this.used.add(seq)
  }

  get consumed(): number {
    return this.used.size
  }

  /** Decisions of the lane (`''` the main lane) taken so far. */
  consumedIn(lane: string): number {
    return this.decisions.filter((d) => (d.lane ?? '') === lane && this.used.has(d.seq)).length
  }

  unused(): DecisionRecord[] {
    return this.decisions.filter((d) => !this.used.has(d.seq))
  }

  /**
   * The recorded decision closest to a missed one: same kind, preferring unused ones, the same
   * lane and step, the same tool name, and then the smallest input difference.
   */
  nearest(kind: string, step: number, lane: string | undefined, input: unknown): DecisionRecord | undefined {
    const name = nameOf(input)
    const ranked = this.decisions
      .filter((d) => d.kind === kind)
      .map((d) => ({
        d,
        rank: [
          this.used.has(d.seq) ? 1 : 0,
          d.lane === lane ? 0 : 1,
          Math.abs(d.step - step),
          name !== undefined && nameOf(d.in) === name ? 0 : 1,
        ],
      }))
      .sort((a, b) => compareRanks(a.rank, b.rank) || a.d.seq - b.d.seq)
    const head = ranked.slice(0, 6).filter((r) => compareRanks(r.rank, ranked[0]!.rank) === 0)
    let best: DecisionRecord | undefined
    let bestSize = Number.POSITIVE_INFINITY
    for (const { d } of head) {
      const size = diffJson(d.in, input, 500).length
      if (size < bestSize) {
        best = d
        bestSize = size
      }
    }
    return best
  }
}

function nameOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const name = (input as Record<string, unknown>).name
  return typeof name === 'string' ? name : undefined
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!
    if (d !== 0) return d
  }
  return 0
}
