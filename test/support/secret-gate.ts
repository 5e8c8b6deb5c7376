import { type GateItem, runGroups } from './gate-items.js'
import type { Outcome, SurfaceGroup } from './gate-tape.js'

/** One value in one place that the gate got wrong. */
export interface GateFailure {
  surface: string
  id: string
  class: string
  /** The pieces written or printed, or what refused or redacted an ordinary text. */
  detail: string
}

export interface ClassTally {
  values: number
  placements: number
  written: number
  printed: number
}

/** What the gate did with the corpus, counted per placement (one value in one place). */
export interface GateMeasure {
  surfaces: { name: string; secret: 'redacted' | 'refused' | 'masked' }[]
  secrets: number
  placements: number
  ordinary: number
  ordinaryPlacements: number
  written: GateFailure[]
  printed: GateFailure[]
  refused: GateFailure[]
  redacted: GateFailure[]
  /** Secrets by class (`shape` for the corpus's samples, else the form's class). */
  secretClasses: Record<string, ClassTally>
  /** Ordinary texts by category: texts, placements, refused, redacted. */
  ordinaryClasses: Record<string, { values: number; placements: number; refused: number; redacted: number }>
}

/** Runs every secret and every ordinary text through every group of places, and counts. */
export async function measureGate(
  groups: readonly SurfaceGroup[],
  secrets: readonly GateItem[],
  ordinary: readonly GateItem[],
): Promise<GateMeasure> {
  const surfaces = groups.flatMap((g) => g.surfaces)
  const names = new Set(surfaces.map((s) => s.name))
  if (names.size !== surfaces.length) throw new Error('two places have the same name')
  const measure: GateMeasure = {
    surfaces,
    secrets: secrets.length,
    placements: secrets.length * surfaces.length,
    ordinary: ordinary.length,
    ordinaryPlacements: ordinary.length * surfaces.length,
    written: [],
    printed: [],
    refused: [],
    redacted: [],
    secretClasses: {},
    ordinaryClasses: {},
  }
  for (const item of secrets) {
    const tally = measure.secretClasses[item.class] ?? { values: 0, placements: 0, written: 0, printed: 0 }
    tally.values++
    tally.placements += surfaces.length
    measure.secretClasses[item.class] = tally
  }
  for (const item of ordinary) {
    const tally = measure.ordinaryClasses[item.class] ?? { values: 0, placements: 0, refused: 0, redacted: 0 }
    tally.values++
    tally.placements += surfaces.length
    measure.ordinaryClasses[item.class] = tally
  }
  for (const group of groups) {
    for (const { env, items } of runGroups([...secrets, ...ordinary])) {
      const suspects = new Set(
        items.filter((item) =>
          [...measure.refused, ...measure.redacted].some((f) => f.id === item.id && f.class === item.class),
        ),
      )
      const outcomes = await group.run(items, env, suspects)
      for (const { name } of group.surfaces) {
        const list = outcomes[name]
        if (list?.length !== items.length)
          throw new Error(`${name} gave ${list?.length} outcomes for ${items.length} values`)
        for (const [i, item] of items.entries()) count(measure, name, item, list[i]!)
      }
    }
  }
  return measure
}

/** The failures by value, one line each, for an assertion's message: what, where, and how many places. */
export function byValue(failures: readonly GateFailure[]): string[] {
  const lines = new Map<string, GateFailure[]>()
  for (const f of failures) lines.set(`${f.class}: ${f.id}`, [...(lines.get(`${f.class}: ${f.id}`) ?? []), f])
  return [...lines].map(
    ([value, list]) =>
      `${value}: in ${list.length} places (${list[0]!.surface}: ${list[0]!.detail.slice(0, 300)})`,
  )
}

function count(measure: GateMeasure, surface: string, item: GateItem, outcome: Outcome): void {
  const failure = (detail: string) => ({ surface, id: item.id, class: item.class, detail })
  if (item.kind === 'secret') {
    const tally = measure.secretClasses[item.class]!
    if (outcome.written.length > 0) {
      tally.written++
      measure.written.push(failure(outcome.written.slice(0, 3).join(', ')))
    }
    if (outcome.printed.length > 0) {
      tally.printed++
      measure.printed.push(failure(outcome.printed.slice(0, 3).join(', ')))
    }
    return
  }
  const tally = measure.ordinaryClasses[item.class]!
  if (outcome.refused) {
    tally.refused++
    measure.refused.push(failure(outcome.refused))
  }
  if (outcome.redacted) {
    tally.redacted++
    measure.redacted.push(failure(outcome.redacted))
  }
}
