/** How two recorded decisions correspond: a pair, or one side only. */
export type Alignment = { a: number; b: number } | { a: number; b?: undefined } | { a?: undefined; b: number }

export interface Alignable {
  kind: string
  step: number
  lane?: string
  key: string
  /** `tool "search"`, `model request (gpt-4o)`, … */
  label: string
}

/**
 * Aligns two runs' decisions in order, as a sequence alignment: only decisions of the same kind
 * and lane can pair, and a pair scores higher the more it agrees (same key, same label, same
 * step). So an inserted tool call shows as one added decision, and an edited prompt as the same
 * model request changed, rather than everything after it being removed and added again.
 */
export function alignDecisions(a: readonly Alignable[], b: readonly Alignable[]): Alignment[] {
  const n = a.length
  const m = b.length
  // best[i][j]: the best score aligning a[i..] with b[j..].
  const best = Array.from({ length: n + 1 }, () => new Float64Array(m + 1))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const pair = score(a[i]!, b[j]!)
      const row = best[i]!
      row[j] = Math.max(best[i + 1]![j]!, row[j + 1]!, pair > 0 ? pair + best[i + 1]![j + 1]! : 0)
    }
  }
  const out: Alignment[] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    const pair = score(a[i]!, b[j]!)
    if (pair > 0 && best[i]![j] === pair + best[i + 1]![j + 1]!) out.push({ a: i++, b: j++ })
    else if (best[i]![j] === best[i + 1]![j]) out.push({ a: i++ })
    else out.push({ b: j++ })
  }
  while (i < n) out.push({ a: i++ })
  while (j < m) out.push({ b: j++ })
  return out
}

function score(x: Alignable, y: Alignable): number {
  if (x.kind !== y.kind || x.lane !== y.lane) return 0
  return 1 + (x.step === y.step ? 2 : 0) + (x.label === y.label ? 2 : 0) + (x.key === y.key ? 4 : 0)
}
