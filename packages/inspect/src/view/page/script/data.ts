// The data the page draws, read from the JSON embedded in it, and how to read its values.
import type { CardData, PageData, SideRole } from '../../page-data.js'
import type { Json } from './dom.js'

export const data = JSON.parse(document.getElementById('agent-tape-data')!.textContent!) as PageData
const REF = '\u0000'
const EXTENDS = '\u0000+'
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
    // A chain of extensions is walked in a loop: a long run's last request extends hundreds.
    const added: unknown[][] = []
    let link: unknown = object
    for (;;) {
      const o = link as Json
      const k = o && typeof o === 'object' && !Array.isArray(o) ? Object.keys(o) : []
      if (k.length === 1 && k[0] === REF) link = data.shared[o[REF] as number]
      else if (k.length === 1 && k[0] === EXTENDS) {
        const [base, ...items] = o[EXTENDS] as [number, ...unknown[]]
        added.push(items)
        link = data.shared[base]
      } else break
    }
    const list = resolve(link) as unknown[]
    for (let i = added.length - 1; i >= 0; i--) for (const item of added[i]!) list.push(resolve(item))
    return list
  }
  const out: Json = {}
  // Defined, not assigned: a recorded `__proto__` key stays a key.
  for (const k of keys) {
    Object.defineProperty(out, k, {
      value: resolve(object[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
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
