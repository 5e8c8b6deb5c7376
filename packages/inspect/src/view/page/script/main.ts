/**
 * The page's script: draws the page from the JSON embedded in it (`#agent-tape-data`). Values
 * only ever become text nodes and attributes, never HTML.
 *
 * The page answers one question first: where did this run stop agreeing with its recording, and
 * what input changed. A divergence page shows the first difference at the top, its changed words
 * marked; runs of decisions that are the same (or that the run never reached) are folded to one
 * row; an outline beside the decisions lists them all, with a filter, and every decision has a
 * permalink (`#d303`). Only what is in sight is built: a fold when it is opened, a block of
 * decisions when it is scrolled near, a decision's whole request when it is opened. So a
 * 1,000-decision run opens as fast as a short one.
 *
 * It runs in the browser, not in Node: it is type-checked against the DOM and the page's data
 * (`tsconfig.page.json`), and the build compiles it to ES2017 and inlines it in the page as one
 * function (scripts/build-view-page.mjs). It imports types only, and nothing at run time: the
 * page's CSP holds its hash and allows no other script and no request.
 */
import type { SideData } from '../../page-data.js'
import { data, ROLES } from './data.js'
import {
  buildBlock,
  buildDecisions,
  byId,
  compare,
  type Fold,
  type Item,
  items,
  openFold,
  outlineEntry,
  outlineNodes,
  searchText,
  sides,
  toolNameOf,
} from './decision-list.js'
import { count, el, plural, seconds } from './dom.js'

// ---- navigation: the current decision, next and previous, permalinks ----
let current: Item | undefined

/** Makes an item's node exist: its fold opened, its block built. */
function reveal(item: Item): HTMLElement | undefined {
  if (item.fold && !item.fold.open) openFold(item.fold, 0)
  if (item.block && !item.block.built) buildBlock(item.block)
  return item.node
}

/** Makes an item the current one: built, marked in the list and the outline, scrolled to, focused. */
function go(item: Item, focus: boolean, scroll = true): void {
  const node = reveal(item)
  if (!node) return
  if (current?.node) current.node.classList.remove('current')
  for (const entry of document.querySelectorAll('#outline [aria-current]'))
    entry.removeAttribute('aria-current')
  current = item
  node.classList.add('current')
  const entry = document.querySelector(`#outline a[data-id="${item.id}"]`)
  if (entry) entry.setAttribute('aria-current', 'true')
  // Keeping the entry in sight measures the page: not while it opens, when its layout is not done
  // (and the entry of the first difference is at the top of the outline anyway).
  if (entry && scroll) {
    const list = entry.parentElement!
    const box = entry.getBoundingClientRect()
    const view = list.getBoundingClientRect()
    if (box.top < view.top || box.bottom > view.bottom) list.scrollTop += box.top - view.top - view.height / 3
  }
  if (scroll) node.scrollIntoView({ block: 'start' })
  if (focus) node.focus({ preventScroll: true })
  // The address names the decision, so that it can be shared (not when the page opens on it).
  if (focus && location.hash !== `#${item.id}`) history.replaceState(null, '', `#${item.id}`)
}

/** The next (or previous) decision, or difference, from the one in focus or else the current one. */
function step(by: number, differences: boolean): void {
  // The decision the focus is in: its row or card, or anything inside it (a button, a summary).
  let focused = document.activeElement
  while (focused && !(focused.id && byId[focused.id])) focused = focused.parentElement
  const start = (focused && byId[focused.id]) || current
  const from = start ? start.index : by > 0 ? -1 : items.length
  for (let i = from + by; i >= 0 && i < items.length; i += by) {
    const item = items[i]!
    if (!differences || item.differs) {
      go(item, true)
      return
    }
  }
}

function fromHash(): boolean {
  const item = byId[decodeURIComponent(location.hash.slice(1))]
  if (!item) return false
  go(item, true)
  return true
}

// ---- the page ----
/**
 * Draws the page. It runs in a task of its own, after the one that read the data: a long run's
 * data takes a while to parse, and each task stays short so that the page answers input at once.
 */
function draw(): void {
  const app = document.getElementById('app')!
  const firstDifference = items.find((i) => i.differs)
  /** A side's totals in a line: decisions, tokens, cost, time. */
  function totalsLine(side: SideData): string {
    const t = side.totals
    return [
      plural(t.decisions, 'decision'),
      t.tokens ? `${count(t.tokens.input)} in / ${count(t.tokens.output)} out tokens` : '',
      side.header.cost,
      `${seconds(t.ms)} recorded`,
    ]
      .filter(Boolean)
      .join(' \u00b7 ')
  }
  const summaryLine = compare
    ? sides.map((side) => `${ROLES[side.role]}: ${totalsLine(side)}`).join('; ')
    : totalsLine(sides[0]!)

  const prev = el(
    'button',
    { type: 'button', id: 'prev-diff', title: 'Previous difference (p)' },
    '\u2191 Previous',
  )
  const next = el(
    'button',
    { type: 'button', id: 'next-diff', title: 'Next difference (n)' },
    'Next difference \u2193',
  )
  prev.addEventListener('click', () => step(-1, compare))
  next.addEventListener('click', () => step(1, compare))
  if (!compare) {
    prev.textContent = '\u2191 Previous'
    next.textContent = 'Next \u2193'
    prev.title = 'Previous decision (k)'
    next.title = 'Next decision (j)'
  }

  // In a narrow window the outline is shown on request, above the decisions.
  const outlineToggle = el(
    'button',
    { type: 'button', id: 'outline-toggle', 'aria-expanded': 'false', 'aria-controls': 'outline' },
    'Outline',
  )
  outlineToggle.addEventListener('click', () => {
    const shown = outlineToggle.getAttribute('aria-expanded') !== 'true'
    outlineToggle.setAttribute('aria-expanded', String(shown))
    document.body.classList.toggle('outline-shown', shown)
  })
  // A run page opens on its outline; a divergence page on its first difference, the outline a click away.
  if (!compare) {
    outlineToggle.setAttribute('aria-expanded', 'true')
    document.body.classList.add('outline-shown')
  }

  const heads = el(
    'div',
    { class: 'heads' },
    sides.map((side) => {
      const h = side.header
      const rows: [string, string][] = [
        ['file', side.file],
        ['test', h.test],
        ['source', h.source],
        ['recorded', h.recordedAt],
        ['harness', h.harness],
        ['runtime', h.runtime],
        ['sdks', h.sdks],
        ['env', h.env],
        ['decisions', h.decisions],
        ['tokens', h.tokens],
        ['cost', h.cost],
        ['ignored', h.ignored],
        ['time', h.time],
      ]
      return el(
        'section',
        { class: 'head', 'aria-label': `${ROLES[side.role]}: ${side.file}` },
        el('h2', null, ROLES[side.role]),
        el(
          'dl',
          null,
          rows.filter((r) => r[1]).map((r) => [el('dt', null, r[0]), el('dd', null, r[1])]),
        ),
      )
    }),
  )
  heads.style.setProperty('--sides', String(sides.length))
  const about = el(
    'details',
    { class: 'about' },
    el(
      'summary',
      null,
      compare
        ? `About the two recordings: files, harness, runtime, totals`
        : 'About this recording: file, harness, runtime, totals',
    ),
    heads,
  )

  // The outline: its filter, then its entries.
  const search = el('input', {
    type: 'search',
    id: 'filter-text',
    placeholder: 'Search (/)',
    'aria-label': 'Search the decisions',
  })
  const kinds: string[] = []
  const statuses: string[] = []
  const tools: string[] = []
  for (const item of items) {
    if (kinds.indexOf(item.card.kind) === -1) kinds.push(item.card.kind)
    if (compare && statuses.indexOf(item.status) === -1) statuses.push(item.status)
    for (const t of toolNameOf(item)) if (tools.indexOf(t) === -1) tools.push(t)
  }
  function select(id: string, label: string, all: string, values: string[]): HTMLSelectElement {
    return el(
      'select',
      { id, 'aria-label': label },
      el('option', { value: '' }, all),
      values.map((v) => el('option', { value: v }, v)),
    )
  }
  const kindFilter = select('filter-kind', 'Kind', 'kind', kinds)
  const statusFilter = select(
    'filter-status',
    'Status',
    'status',
    compare ? ['differences', ...statuses] : [],
  )
  const toolFilter = select('filter-tool', 'Tool', 'tool', tools)
  const matches = el('p', { class: 'o-count', 'aria-live': 'polite' })
  const list = el('div', { class: 'o-list' })
  const outline = el(
    'nav',
    { id: 'outline', 'aria-label': 'Outline of the decisions' },
    el(
      'div',
      { class: 'filters' },
      search,
      kinds.length > 1 ? kindFilter : null,
      compare ? statusFilter : null,
      tools.length ? toolFilter : null,
    ),
    matches,
    list,
  )

  const main = buildDecisions()
  list.append(...outlineNodes)
  matches.textContent = compare
    ? `${plural(items.length, 'decision')}, ${plural(items.filter((i) => i.differs).length, 'difference')}`
    : plural(items.length, 'decision')

  function applyFilter(): void {
    const text = search.value.trim().toLowerCase()
    const kind = kindFilter.value
    const status = statusFilter.value
    const tool = toolFilter.value
    if (!text && !kind && !status && !tool) {
      list.replaceChildren(...outlineNodes)
      matches.textContent = compare
        ? `${plural(items.length, 'decision')}, ${plural(items.filter((i) => i.differs).length, 'difference')}`
        : plural(items.length, 'decision')
      return
    }
    const found = items.filter(
      (item) =>
        (!kind || item.card.kind === kind) &&
        (!status || (status === 'differences' ? item.differs : item.status === status)) &&
        (!tool || toolNameOf(item).indexOf(tool) !== -1) &&
        (!text || searchText(item).indexOf(text) !== -1),
    )
    // A filtered outline lists what matches, unfolded, up to a few hundred lines.
    list.replaceChildren(...found.slice(0, 500).map(outlineEntry))
    matches.textContent = `${found.length} of ${plural(items.length, 'decision')} match${found.length > 500 ? ' (the first 500 listed)' : ''}`
  }
  search.addEventListener('input', applyFilter)
  for (const s of [kindFilter, statusFilter, toolFilter]) s.addEventListener('change', applyFilter)
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      search.value = ''
      applyFilter()
    }
  })

  list.addEventListener('click', (e) => {
    const target = e.target as HTMLElement
    // A fold of the outline opens the fold of the list, and goes to its first decision.
    const fold = (target.closest('button.o-fold') as (HTMLElement & { fold?: Fold }) | null)?.fold
    if (fold) {
      openFold(fold)
      go(fold.items[0]!, true)
      return
    }
    const entry = target.closest('a.o')
    if (!entry) return
    e.preventDefault()
    const item = byId[entry.getAttribute('data-id')!]
    if (item) go(item, true)
  })

  document.addEventListener('keydown', (e) => {
    const target = e.target as HTMLElement
    if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return
    if (e.key === 'j') step(1, false)
    else if (e.key === 'k') step(-1, false)
    else if (e.key === 'n') step(1, compare)
    else if (e.key === 'p') step(-1, compare)
    else if (e.key === '/') search.focus()
    else return
    e.preventDefault()
  })
  window.addEventListener('hashchange', () => fromHash())

  app.append(
    el(
      'a',
      { class: 'skip', href: firstDifference ? `#${firstDifference.id}` : '#decisions' },
      firstDifference ? 'Skip to the first difference' : 'Skip to the decisions',
    ),
    el(
      'header',
      { class: 'top' },
      el('h1', null, data.title),
      data.verdict ? el('p', { class: 'verdict-line' }, data.verdict) : null,
      el(
        'div',
        { class: 'toolbar', role: 'toolbar', 'aria-label': 'Navigation' },
        prev,
        next,
        outlineToggle,
        el('span', { class: 'totals' }, summaryLine),
        el(
          'span',
          { class: 'keys' },
          compare ? 'keys: n / p difference, j / k decision, / search' : 'keys: j / k decision, / search',
        ),
      ),
    ),
    el('div', { class: 'layout' }, outline, el('div', { class: 'content' }, main, about)),
    el(
      'footer',
      null,
      `Written by ${data.generator}. Self-contained: this page loads nothing from anywhere.`,
    ),
  )
  // A permalink lands on its decision; a divergence opens on its first difference.
  if (!fromHash() && firstDifference) go(firstDifference, false, false)
  document.documentElement.setAttribute('data-ready', 'true')
}

setTimeout(draw, 0)
