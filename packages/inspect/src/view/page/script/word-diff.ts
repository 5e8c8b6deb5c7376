// The word diff of a changed field: its two versions row by row, side by side or unified.
import type { TextPiece, TextRow } from '@agent-tape/core/internal'
import type { InputEdit, RowData, SideData } from '../../page-data.js'
import { ROLES } from './data.js'
import { el, marked, plural } from './dom.js'

let splitView = window.matchMedia('(min-width: 900px)').matches

function pieces(line: TextPiece[], mark: 'del' | 'ins'): Node[] {
  return line.map(([change, text]) =>
    change === 1
      ? el(mark, { title: mark === 'del' ? 'removed' : 'inserted' }, text)
      : change === 2
        ? el('span', { class: 'elided' }, text)
        : marked(text),
  )
}

function wordDiff(rows: readonly TextRow[]): HTMLElement {
  const box = el('div', { class: `word-diff ${splitView ? 'split' : 'unified'}` })
  const same = (n: number) => el('div', { class: 'skipped' }, `\u22ef ${plural(n, 'unchanged line')}`)
  for (const row of rows) {
    if (typeof row === 'number') box.append(same(row))
    else if (typeof row === 'string') {
      if (splitView) box.append(el('div', { class: 'line' }, row), el('div', { class: 'line' }, row))
      else box.append(el('div', { class: 'line' }, el('span', { class: 'sign' }, ' '), row))
    } else if (splitView) {
      const [left, right] = row
      box.append(
        left ? el('div', { class: 'line left' }, pieces(left, 'del')) : el('div', { class: 'line blank' }),
        right ? el('div', { class: 'line right' }, pieces(right, 'ins')) : el('div', { class: 'line blank' }),
      )
    } else {
      const [left, right] = row
      if (left)
        box.append(
          el('div', { class: 'line left' }, el('span', { class: 'sign' }, '\u2212'), pieces(left, 'del')),
        )
      if (right)
        box.append(
          el('div', { class: 'line right' }, el('span', { class: 'sign' }, '+'), pieces(right, 'ins')),
        )
    }
  }
  return box
}

/** One changed field: what it is (1-based name, JSON path), what happened to it, its words. */
function editView(edit: InputEdit, names: [string, string]): HTMLElement {
  const head = el(
    'p',
    { class: 'edit-name' },
    edit.name ? el('strong', null, edit.name) : null,
    el('code', null, edit.path),
    el('span', { class: `edit-kind k-${edit.change}` }, edit.change),
  )
  const sides = splitView
    ? el(
        'div',
        { class: 'diff-sides', 'aria-hidden': 'true' },
        el('span', null, names[0]),
        el('span', null, names[1]),
      )
    : null
  return el('div', { class: 'edit' }, head, sides, wordDiff(edit.rows))
}

export function changesBox(row: RowData, a: SideData, b: SideData): HTMLElement | null {
  if (!row.edits.length && !row.output.length) return null
  const names: [string, string] = [ROLES[a.role], ROLES[b.role]]
  const box = el('div', { class: 'changes' })
  if (row.edits.length) {
    const toggle = el(
      'button',
      { type: 'button', class: 'diff-mode', 'aria-pressed': String(splitView) },
      'Side by side',
    )
    const edits = el(
      'div',
      { class: 'edits' },
      row.edits.map((e) => editView(e, names)),
    )
    toggle.addEventListener('click', () => {
      splitView = !splitView
      for (const button of document.querySelectorAll('.diff-mode'))
        button.setAttribute('aria-pressed', String(splitView))
      // Every open diff follows, so that two rows read alike.
      for (const open of document.querySelectorAll<HTMLElement>('.edits')) {
        const edits = (open as HTMLElement & { edits?: InputEdit[] }).edits
        if (edits) open.replaceChildren(...edits.map((e) => editView(e, names)))
      }
    })
    ;(edits as HTMLElement & { edits?: InputEdit[] }).edits = row.edits
    box.append(
      el(
        'div',
        { class: 'changes-head' },
        el('h5', null, `Input changed (${names[0].toLowerCase()} \u2192 ${names[1].toLowerCase()})`),
        toggle,
      ),
      edits,
    )
    if (row.moreEdits) {
      box.append(
        el(
          'p',
          { class: 'muted' },
          `${plural(row.moreEdits, 'more changed field')}: agent-tape diff --full lists them.`,
        ),
      )
    }
  }
  if (row.output.length) {
    box.append(
      el('h5', null, 'Answer changed'),
      el(
        'ul',
        { class: 'mono' },
        row.output.map((l) => el('li', null, l)),
      ),
    )
  }
  return box
}
