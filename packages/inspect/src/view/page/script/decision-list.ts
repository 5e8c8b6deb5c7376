// The list of decisions: an item a decision (a card of a run, an aligned row of two), runs of
// the same folded, and blocks built when they are scrolled near or navigated to; the outline
// beside it lists the same items, folded as the list is.
import type { CardData, RowData, SideData } from '../../page-data.js'
import { card } from './card.js'
import { data, laneName, place, ROLES, resolve, tokensOf } from './data.js'
import { el, json, plural, seconds } from './dom.js'
import { changesBox } from './word-diff.js'

/** Decisions built at a time: the rest of a long list waits until it is scrolled near. */
const BUILT_AT_ONCE = 16
/** Runs of at least this many decisions the same (or not reached) are folded to one row. */
const FOLD = 3

/** A decision of the list: a card of a run, or an aligned row of two. */
export interface Item {
  /** Its permalink's id: `d303` (this run's or the only side's #303), `r304` (the recording's alone). */
  id: string
  index: number
  card: CardData
  row?: RowData
  status: string
  /** A difference to stop at (next/previous difference). */
  differs: boolean
  fold?: Fold
  block?: Block
  node?: HTMLElement
  text?: string
}

export interface Fold {
  items: Item[]
  verdict: string
  open: boolean
  node: HTMLElement
  outline?: HTMLElement
}

/** Decisions built together: a placeholder until it is scrolled near or navigated to. */
interface Block {
  items: Item[]
  node: HTMLElement
  built: boolean
}

export const sides = data.sides
export const compare = data.kind === 'compare'
export const items: Item[] = []
if (compare) {
  for (const row of data.rows || []) {
    const x = row.a === undefined ? undefined : sides[0]!.cards[row.a]
    const y = row.b === undefined ? undefined : sides[1]!.cards[row.b]
    const status = row.verdict
    items.push({
      id: y ? `d${y.seq}` : `r${x!.seq}`,
      index: items.length,
      card: (y || x)!,
      row,
      status,
      differs: status !== 'same' && status !== 'not reached',
    })
  }
} else {
  // Down the page by step, as the timeline draws them (lanes side by side within a step).
  const cards = sides[0]!.cards.slice().sort((x, y) => x.step - y.step || x.seq - y.seq)
  for (const c of cards) {
    items.push({ id: `d${c.seq}`, index: items.length, card: c, status: c.kind, differs: false })
  }
}
export const byId: Record<string, Item> = {}
for (const item of items) byId[item.id] = item

function rowView(item: Item): HTMLElement {
  const row = item.row!
  const [a, b] = sides as [SideData, SideData]
  const x = row.a === undefined ? undefined : a.cards[row.a]
  const y = row.b === undefined ? undefined : b.cards[row.b]
  const seq = x && y && x.seq !== y.seq ? `#${x.seq} \u2192 #${y.seq}` : `#${item.card.seq}`
  const missing =
    row.verdict === 'not reached'
      ? 'the run stopped before this decision'
      : `not in ${ROLES[b.role].toLowerCase()}`
  return el(
    'li',
    {
      class: `row v-${row.verdict.replace(/ /g, '-')}`,
      id: item.id,
      'data-verdict': row.verdict,
      tabindex: '-1',
    },
    el(
      'p',
      { class: 'row-verdict' },
      el('span', { class: 'badge' }, row.verdict),
      el('a', { class: 'permalink', href: `#${item.id}`, title: 'Link to this decision' }, seq),
      `${place(item.card)} \u00b7 ${item.card.label}`,
    ),
    changesBox(row, a, b),
    // The same decision on both sides is shown once.
    row.verdict === 'same' && x
      ? el(
          'div',
          { class: 'pair one' },
          el(
            'div',
            { class: 'side' },
            el(
              'div',
              { class: 'side-label' },
              `${ROLES[a.role]} and ${ROLES[b.role].toLowerCase()}, the same`,
            ),
            card(x, a, `a${x.seq}`, row),
          ),
        )
      : el(
          'div',
          { class: 'pair' },
          el(
            'div',
            { class: 'side' },
            el('div', { class: 'side-label' }, ROLES[a.role]),
            x
              ? card(x, a, `a${x.seq}`, row)
              : el('div', { class: 'empty' }, `not in ${ROLES[a.role].toLowerCase()}`),
          ),
          el(
            'div',
            { class: 'side' },
            el('div', { class: 'side-label' }, ROLES[b.role]),
            y ? card(y, b, `b${y.seq}`, row) : el('div', { class: 'empty' }, missing),
          ),
        ),
  )
}

/** A run page's step: its cards, a column a lane. */
function stepView(step: number, cards: Item[]): HTMLElement {
  const lanes = sides[0]!.lanes
  const cells: Item[][] = lanes.map(() => [])
  for (const item of cards) cells[lanes.indexOf(item.card.lane)]!.push(item)
  return el(
    'section',
    { class: 'step', 'aria-label': `Step ${step}` },
    el('h3', { class: 'step-label' }, `step ${step}`),
    cells.map((list, i) =>
      el(
        'div',
        { class: 'cell', 'data-lane': laneName(lanes[i]) },
        list.length && lanes.length > 1
          ? el('div', { class: 'cell-lane' }, `lane ${laneName(lanes[i])}`)
          : null,
        list.map((item) => {
          item.node = card(item.card, sides[0]!, item.id)
          item.node.setAttribute('tabindex', '-1')
          return item.node
        }),
      ),
    ),
  )
}

export function buildBlock(block: Block): void {
  if (block.built) return
  block.built = true
  const nodes: HTMLElement[] = []
  if (compare) {
    for (const item of block.items) {
      item.node = rowView(item)
      nodes.push(item.node)
    }
  } else {
    // Cards are grouped by step; a block holds whole steps.
    let step: Item[] = []
    for (const item of block.items) {
      if (step.length && step[0]!.card.step !== item.card.step) {
        nodes.push(stepView(step[0]!.card.step, step))
        step = []
      }
      step.push(item)
    }
    if (step.length) nodes.push(stepView(step[0]!.card.step, step))
  }
  observer?.unobserve(block.node)
  block.node.replaceWith(...nodes)
}

const observer =
  typeof IntersectionObserver === 'function'
    ? new IntersectionObserver(
        (entries) => {
          for (const entry of entries) {
            if (!entry.isIntersecting) continue
            const block = (entry.target as HTMLElement & { block?: Block }).block
            if (block) buildBlock(block)
          }
        },
        { rootMargin: '1200px 0px' },
      )
    : undefined

/** Appends items to a list as blocks: those before `eager` built now, the others when scrolled near. */
function mount(parent: HTMLElement, before: Node | null, list: Item[], eager: number): void {
  let i = 0
  while (i < list.length) {
    let end = Math.min(i + BUILT_AT_ONCE, list.length)
    // A run page's block holds whole steps.
    while (!compare && end < list.length && list[end]!.card.step === list[end - 1]!.card.step) end++
    const blockItems = list.slice(i, end)
    const first = blockItems[0]!.card
    const last = blockItems[blockItems.length - 1]!.card
    const placeholder = el(
      compare ? 'li' : 'div',
      { class: 'block', 'aria-busy': 'true' },
      `decisions #${first.seq}\u2013#${last.seq}`,
    )
    placeholder.style.minHeight = `${blockItems.length * (compare ? 16 : 9)}rem`
    const block: Block = { items: blockItems, node: placeholder, built: false }
    ;(placeholder as HTMLElement & { block?: Block }).block = block
    for (const item of blockItems) item.block = block
    parent.insertBefore(placeholder, before)
    if (i < eager) buildBlock(block)
    else observer?.observe(placeholder)
    i = end
  }
}

function describeFold(fold: Fold): string {
  const first = fold.items[0]!.card
  const last = fold.items[fold.items.length - 1]!.card
  const steps = first.step === last.step ? `step ${first.step}` : `steps ${first.step}\u2013${last.step}`
  const what = fold.verdict === 'same' ? 'the same' : 'not reached'
  return `${plural(fold.items.length, 'decision')} ${what}: ${steps} (#${first.seq}\u2013#${last.seq})`
}

function foldView(fold: Fold): HTMLElement {
  const button = el(
    'button',
    { type: 'button', class: 'fold-toggle', 'aria-expanded': 'false' },
    el('span', { class: 'fold-mark', 'aria-hidden': 'true' }, '\u25b8'),
    describeFold(fold),
  )
  button.addEventListener('click', () => {
    openFold(fold)
    // The button is gone: the keyboard goes on from the first decision it held.
    fold.items[0]!.node?.focus({ preventScroll: true })
  })
  return el(
    'li',
    { class: `fold v-${fold.verdict.replace(/ /g, '-')}`, 'data-verdict': fold.verdict },
    button,
  )
}

/** Unfolds a fold: its decisions in blocks, the first built now unless `eager` says none. */
export function openFold(fold: Fold, eager = BUILT_AT_ONCE): void {
  if (fold.open) return
  fold.open = true
  const list = fold.node.parentElement!
  const after = fold.node.nextSibling
  fold.node.remove()
  mount(list, after, fold.items, eager)
  if (fold.outline) {
    const entries = fold.items.map(outlineEntry)
    const at = outlineNodes.indexOf(fold.outline)
    if (at !== -1) outlineNodes.splice(at, 1, ...entries)
    fold.outline.replaceWith(...entries)
  }
}

// ---- the outline: every decision in a line, folded as the list is, with a filter ----
/** A line of the outline: two elements, as a thousand of them are built when the page opens. */
export function outlineEntry(item: Item): HTMLElement {
  const c = item.card
  const tokens = tokensOf(c)
  const entry = el(
    'a',
    {
      class: `o s-${item.status.replace(/ /g, '-')} kind-${c.kind}`,
      href: `#${item.id}`,
      'data-id': item.id,
    },
    `#${c.seq} ${c.label}`,
    el(
      'span',
      { class: 'o-meta' },
      ` ${compare ? `${item.status} \u00b7 ` : ''}step ${c.step}${c.lane ? ` \u00b7 ${c.lane}` : ''}${tokens ? ` \u00b7 ${tokens} tok` : ''} \u00b7 ${seconds(c.ms)}`,
    ),
  )
  return entry
}

function outlineFold(fold: Fold): HTMLElement {
  const button = el(
    'button',
    { type: 'button', class: `o o-fold s-${fold.verdict.replace(/ /g, '-')}`, 'aria-expanded': 'false' },
    `\u25b8 ${describeFold(fold)}`,
  )
  ;(button as HTMLElement & { fold?: Fold }).fold = fold
  fold.outline = button
  return button
}

/** The text a search looks in: what the decision itself said and answered, not its whole history. */
export function searchText(item: Item): string {
  if (item.text !== undefined) return item.text
  const c = item.card
  const parts: unknown[] = [c.label, c.key, item.status, c.kind]
  if (c.model) {
    const a = c.model.answer
    parts.push(
      c.model.request.model,
      c.model.request.last ? resolve(c.model.request.last.text) : undefined,
      a?.text,
      a?.toolCalls.map((t) => `${t.name} ${t.arguments}`).join(' '),
    )
  }
  if (c.tool)
    parts.push(c.tool.name, json(c.tool.args, true), c.output !== undefined ? c.output : resolve(c.whole.out))
  if (c.env) parts.push(Object.keys(c.env).join(' '))
  if (c.error) parts.push(c.error.message)
  if (item.row) for (const e of item.row.edits) parts.push(e.name, e.path)
  item.text = parts
    .filter((p) => p !== undefined && p !== null)
    .map((p) => (typeof p === 'string' ? p : json(p, true)))
    .join(' ')
    .toLowerCase()
  return item.text
}

export function toolNameOf(item: Item): string[] {
  const c = item.card
  const names = c.tool ? [c.tool.name] : []
  if (c.model?.answer) for (const t of c.model.answer.toolCalls) names.push(t.name)
  return names
}

/** Every decision the outline lists, folded as the list is (folds replaced by their items when opened). */
export const outlineNodes: HTMLElement[] = []

/** The decisions, folded where the same, their first blocks built; fills {@link outlineNodes}. */
export function buildDecisions(): HTMLElement {
  const main = el('section', {
    id: 'decisions',
    'aria-label': 'Decisions',
    class: compare ? 'compare' : 'run',
  })
  if (compare) {
    const ol = el('ol', { class: 'rows', 'aria-label': 'Decisions, aligned' })
    main.append(ol)
    let i = 0
    let plain: Item[] = []
    const flush = () => {
      // The stretch up to the first difference is built at once: the page opens on it.
      mount(ol, null, plain, BUILT_AT_ONCE)
      for (const item of plain) outlineNodes.push(outlineEntry(item))
      plain = []
    }
    while (i < items.length) {
      const verdict = items[i]!.status
      let j = i
      while (j < items.length && items[j]!.status === verdict) j++
      if ((verdict === 'same' || verdict === 'not reached') && j - i >= FOLD) {
        flush()
        const fold: Fold = { items: items.slice(i, j), verdict, open: false, node: el('li') }
        for (const item of fold.items) item.fold = fold
        fold.node = foldView(fold)
        ol.append(fold.node)
        outlineNodes.push(outlineFold(fold))
      } else for (const item of items.slice(i, j)) plain.push(item)
      i = j
    }
    flush()
  } else {
    const lanes = sides[0]!.lanes
    const timeline = el('div', {
      class: 'timeline',
      'aria-label': `Decisions by step${lanes.length > 1 ? ' and lane' : ''}`,
    })
    timeline.style.setProperty('--lanes', String(Math.max(1, lanes.length)))
    if (lanes.length > 1) {
      timeline.append(el('div', { 'aria-hidden': 'true' }))
      for (const l of lanes)
        timeline.append(el('div', { class: 'lane-head', 'aria-hidden': 'true' }, `lane ${laneName(l)}`))
    }
    main.append(timeline)
    mount(timeline, null, items, BUILT_AT_ONCE)
    for (const item of items) outlineNodes.push(outlineEntry(item))
  }
  return main
}
