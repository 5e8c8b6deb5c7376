// The data the page draws, read from the JSON embedded in it, and how to read its values.
import type { CardData, PageData, SideRole } from '../../page-data.js'
import type { Json } from './dom.js'

export const data = JSON.parse(document.getElementById('agent-tape-data')!.textContent!) as PageData
export const REF = '\u0000'
export const EXTENDS = '\u0000+'
// Cards both sides hold alike are stored once (render-page.ts): each side's is a reference.
for (const side of data.sides) {
  side.cards = side.cards.map((card) => {
    const ref = (card as unknown as Json)[REF]
    return typeof ref === 'number' ? (data.shared[ref] as CardData) : card
  })
}

export const ROLES: Record<SideRole, string> = {
  recording: 'Recording',
  run: 'This run',
  before: 'Before',
  after: 'After',
}

/**
 * A value of the data with its references into `data.shared` replaced by what they name: a
 * value stored once (`{"\u0000": i}`), or a list that extends one stored before
 * (`{"\u0000+": [i, …items]}`: the list at `i`, then the items).
 */
export function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve)
  if (!value || typeof value !== 'object') return value
  const object = value as Json
  const keys = Object.keys(object)
  if (keys.length === 1 && keys[0] === REF) return resolve(data.shared[object[REF] as number])
  if (keys.length === 1 && keys[0] === EXTENDS) {
    const [base, ...items] = object[EXTENDS] as [number, ...unknown[]]
    return (resolve(data.shared[base]) as unknown[]).concat(items.map(resolve))
  }
  const out: Json = {}
  for (const k of keys) out[k] = resolve(object[k])
  return out
}

export function laneName(lane: string | undefined): string | undefined {
  return lane === '' ? 'main' : lane
}

export function place(card: CardData): string {
  return `step ${card.step}${card.lane ? ` \u00b7 lane ${card.lane}` : ''}`
}

export function tokensOf(c: CardData): number {
  const usage = c.model?.answer?.usage
  return usage ? usage.input + usage.output : 0
}
