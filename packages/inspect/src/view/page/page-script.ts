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
import type { TextPiece, TextRow } from '@agent-tape/core/internal'
import type { CardData, InputEdit, PageData, RowData, SideData, SideRole } from '../page-data.js'

type Json = Record<string, unknown>
/** What `el` and `add` take as children: nodes, text, lists of them; `null`, `undefined` and `false` are skipped. */
type Child = Node | string | number | null | undefined | false | Child[]
type Props = Record<string, string | number | boolean | null | undefined | EventListener>
/** Adds one field to a card: its name (what a change highlights), its label and its value. */
type AddField = (name: string, label: string, value: Child) => void
/** One event of a recorded stream as its body keeps it. */
interface StreamItem {
  t: number
  event?: string
  json?: unknown
  data?: string
  text?: string
}

const data = JSON.parse(document.getElementById('agent-tape-data')!.textContent!) as PageData
const REF = '\u0000'
const EXTENDS = '\u0000+'
const ROLES: Record<SideRole, string> = {
  recording: 'Recording',
  run: 'This run',
  before: 'Before',
  after: 'After',
}
/** Decisions built at a time: the rest of a long list waits until it is scrolled near. */
const BLOCK = 16
/** Runs of at least this many decisions the same (or not reached) are folded to one row. */
const FOLD = 3

// ---- building nodes: every value reaches the page as a text node or an attribute ----
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (props) {
    for (const k of Object.keys(props)) {
      const v = props[k]
      if (v === undefined || v === null || v === false) continue
      if (k === 'class') node.className = String(v)
      else if (k.slice(0, 2) === 'on') node.addEventListener(k.slice(2), v as EventListener)
      else node.setAttribute(k, v === true ? '' : String(v))
    }
  }
  for (const child of children) add(node, child)
  return node
}

function add(node: Node & ParentNode, child: Child): void {
  if (child === undefined || child === null || child === false) return
  if (Array.isArray(child)) for (const c of child) add(node, c)
  else if (child instanceof Node) node.append(child)
  else node.append(marked(String(child)))
}

// Redaction markers stand out, as in the terminal.
function marked(text: string): Node {
  const parts = text.split(/(\[REDACTED(?::[^\]]*)?\])/)
  if (parts.length === 1) return document.createTextNode(text)
  const span = document.createDocumentFragment()
  parts.forEach((part, i) => {
    if (i % 2) span.append(el('mark', { class: 'redacted' }, document.createTextNode(part)))
    else if (part) span.append(document.createTextNode(part))
  })
  return span
}

/**
 * A value of the data with its references into `data.shared` replaced by what they name: a
 * value stored once (`{"\u0000": i}`), or a list that extends one stored before
 * (`{"\u0000+": [i, …items]}`: the list at `i`, then the items).
 */
function resolve(value: unknown): unknown {
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

function json(value: unknown, compact?: boolean): string {
  if (value === undefined) return 'undefined'
  return compact ? JSON.stringify(value) : JSON.stringify(value, null, 2)
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}\u2026` : text
}

function asObject(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {}
}

/** `12,345` (not `toLocaleString`, which is slow enough to matter a thousand times over). */
function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

function plural(n: number, word: string): string {
  return `${count(n)} ${word}${n === 1 ? '' : 's'}`
}

function laneName(lane: string | undefined): string | undefined {
  return lane === '' ? 'main' : lane
}

function place(card: CardData): string {
  return `step ${card.step}${card.lane ? ` \u00b7 lane ${card.lane}` : ''}`
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`
}

function tokensOf(c: CardData): number {
  const usage = c.model?.answer?.usage
  return usage ? usage.input + usage.output : 0
}

/** A button that copies a text (a request, an answer, a key) and says so. */
function copyButton(what: string, text: () => string): HTMLButtonElement {
  const label = `Copy ${what}`
  const button = el('button', { type: 'button', class: 'copy', 'data-copy': what }, label)
  button.addEventListener('click', () => {
    const value = text()
    const done = () => {
      button.textContent = 'Copied'
      button.setAttribute('data-copied', 'true')
      setTimeout(() => {
        button.textContent = label
      }, 1500)
    }
    const fallback = () => {
      const area = el('textarea', { class: 'sr-only', 'aria-hidden': 'true' })
      area.value = value
      document.body.append(area)
      area.select()
      document.execCommand('copy')
      area.remove()
      done()
    }
    if (navigator.clipboard) navigator.clipboard.writeText(value).then(done, fallback)
    else fallback()
  })
  return button
}

// ---- the word diff of a changed field: its two versions row by row, side by side or unified ----
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

function changesBox(row: RowData, a: SideData, b: SideData): HTMLElement | null {
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

// ---- a card: one decision in a few lines, and the whole of it on request ----
function card(c: CardData, side: SideData, id: string, row?: RowData): HTMLElement {
  const changed = row ? row.fields : []
  const fields = el('dl', { class: 'fields' })
  const field: AddField = (name, label, value) => {
    if (value === undefined || value === null || value === '') return
    const isChanged = changed.indexOf(name) !== -1
    fields.append(
      el(
        'dt',
        { class: isChanged ? 'changed' : null, 'data-field': name },
        label,
        isChanged ? el('span', { class: 'sr-only' }, ' (changed)') : null,
      ),
      el('dd', { class: isChanged ? 'changed' : null, 'data-field': name }, value),
    )
  }
  if (c.model) modelFields(c, field, row)
  if (c.tool) field('args', 'args', argsTable(c.tool.args))
  const env = c.env
  if (env) {
    for (const k of Object.keys(env)) field('env', k, env[k] === null ? 'unset' : `set (${env[k]})`)
  }
  if (!c.model && !c.tool && !c.env) field('input', 'input', clip(json(resolve(c.whole.in), true), 300))
  if (!c.model) {
    const out = c.output !== undefined ? c.output : resolve(c.whole.out)
    const name = c.tool ? 'result' : 'output'
    if (out !== undefined) field(name, name, clip(outputText(out), 400))
  }
  if (c.error) field('error', 'error', `${c.error.name}: ${c.error.message}`)
  const whole = el(
    'details',
    { class: 'whole' },
    el(
      'summary',
      { 'aria-label': `Open decision #${c.seq} whole` },
      c.missed ? 'The whole request' : 'The whole decision',
    ),
  )
  whole.addEventListener('toggle', () => {
    if (whole.open && whole.children.length === 1) whole.append(wholeDecision(c, row))
  })
  const kind = ['llm', 'tool', 'env'].indexOf(c.kind) === -1 ? 'other' : c.kind
  const meta: Child[] = [
    el('span', { class: changed.indexOf('position') !== -1 ? 'changed' : null }, place(c)),
    el('span', null, c.missed ? 'not answered' : seconds(c.ms)),
  ]
  if (c.at !== undefined) meta.push(el('span', null, `at +${seconds(c.at)}`))
  if (tokensOf(c)) meta.push(el('span', null, plural(tokensOf(c), 'token')))
  meta.push(
    el('span', { class: 'mono key' }, c.key),
    copyButton('key', () => c.key),
  )
  return el(
    'article',
    {
      class: `card kind-${kind}${c.missed ? ' missed' : ''}`,
      id,
      'aria-labelledby': `${id}-t`,
      'data-seq': c.seq,
      'data-kind': c.kind,
    },
    el(
      'h4',
      { class: 'card-title', id: `${id}-t` },
      el('span', { class: 'seq' }, `#${c.seq}`),
      el('span', { class: 'name' }, c.label),
      c.missed ? el('span', { class: 'badge missed' }, 'missed: never recorded') : null,
    ),
    el('div', { class: 'card-meta' }, meta),
    c.missed ? null : timeBar(c, side),
    fields,
    whole,
  )
}

/**
 * How long the decision took, drawn to the scale of the run: where the cassette holds when each
 * decision started, a bar on the run's time axis (a waterfall); otherwise its length alone.
 */
function timeBar(c: CardData, side: SideData): HTMLElement {
  const bar = el('div', { class: 'bar', 'aria-hidden': 'true', title: `${seconds(c.ms)}` })
  const span = side.span || side.maxMs
  if (c.at !== undefined && side.span) {
    bar.style.marginLeft = `${(100 * c.at) / span}%`
    bar.style.width = `${Math.max(0.5, (100 * c.ms) / span)}%`
  } else bar.style.width = `${Math.max(0.5, (100 * c.ms) / side.maxMs)}%`
  return el('div', { class: 'axis' }, bar)
}

/** A tool call's arguments as a small table: a row a name, its value as JSON when not a text. */
function argsTable(args: unknown): Child {
  const list = Array.isArray(args) && args.length === 1 ? args[0] : args
  const object = asObject(list)
  const names = Object.keys(object)
  if (!names.length || names.length > 12) return clip(json(args, true), 400)
  return el(
    'table',
    { class: 'args' },
    el(
      'tbody',
      null,
      names.map((k) => {
        const v = object[k]
        return el(
          'tr',
          null,
          el('th', { scope: 'row' }, k),
          el('td', null, clip(typeof v === 'string' ? v : json(v, true), 200)),
        )
      }),
    ),
  )
}

function modelFields(c: CardData, field: AddField, row?: RowData): void {
  const model = c.model!
  const r = model.request
  const a = model.answer
  field('model', 'model', (r.model || '') + (a?.model && a.model !== r.model ? ` \u2192 ${a.model}` : ''))
  field('request', 'request', [r.api, r.method, r.path].filter(Boolean).join(' '))
  // What changed in the conversation, named as the changes box names it; else its last message.
  const touched = (row ? row.edits : []).filter((e) =>
    /^body\.(messages|input|contents|system|instructions)/.test(e.path),
  )
  const names: string[] = []
  for (const e of touched) {
    const name = `${e.change} ${e.name || e.path}`
    if (names.indexOf(name) === -1) names.push(name)
  }
  field(
    'messages',
    'messages',
    plural(r.messages, 'message') +
      (names.length
        ? `: ${names.join(', ')}`
        : r.last
          ? `, last ${r.last.role}: ${clip(r.last.text, 240)}`
          : ''),
  )
  field('tools', 'tools', model.tools.length ? model.tools.join(', ') : 'none')
  if (!a) return
  const events = plural(a.stream ? a.stream.count : 0, 'event')
  field('answer', 'answer', `${a.streamed ? `streamed (${events})` : 'json'} \u00b7 ${a.status}`)
  field('text', 'text', a.text ? clip(a.text, 600) : '')
  field('calls', 'calls', a.toolCalls.length ? a.toolCalls.map((t) => callView(t.name, t.arguments)) : '')
  field('finish', 'finish', a.finishReason)
  field('tokens', 'tokens', a.usage ? `${a.usage.input} in / ${a.usage.output} out` : '')
  field('error', 'error', a.error)
}

function callView(name: string, args: string): HTMLElement {
  let parsed: unknown
  try {
    parsed = JSON.parse(args)
  } catch {
    parsed = undefined
  }
  return el(
    'div',
    { class: 'call' },
    el('span', { class: 'call-name' }, name),
    parsed === undefined ? el('code', null, clip(args, 300)) : argsTable(parsed),
  )
}

function outputText(out: unknown): string {
  const o = asObject(out)
  if (typeof o.status === 'number' && o.headers) {
    const body = asObject(o.body)
    const shown = 'json' in body ? json(body.json, true) : 'text' in body ? body.text : ''
    return `status ${o.status}${shown ? ` \u00b7 ${shown}` : ''}`
  }
  return typeof out === 'string' ? out : json(out, true)
}

// ---- the whole decision: the conversation as a transcript, the answer, the recorded JSON ----
const SYSTEM = ['system', 'instructions', 'systemInstruction', 'system_instruction']
const CONVERSATION = ['messages', 'input', 'contents']

function wholeDecision(c: CardData, row?: RowData): HTMLElement {
  const input = resolve(c.whole.in)
  const out = resolve(c.whole.out)
  const changedPaths = row ? row.edits.map((e) => e.path) : []
  const box = el(
    'div',
    { class: 'whole-body' },
    el(
      'div',
      { class: 'copies' },
      copyButton('request', () => json(input)),
      out !== undefined ? copyButton('answer', () => json(out)) : null,
    ),
  )
  if (c.kind === 'llm' && input && typeof input === 'object' && 'body' in input) {
    add(box, request(input as Json, changedPaths))
    if (out !== undefined) add(box, answer(c, out))
  } else {
    box.append(part('Input', el('pre', null, json(input))))
    if (out !== undefined) {
      box.append(
        part(c.tool ? 'Result' : 'Output', el('pre', null, typeof out === 'string' ? out : json(out))),
      )
    }
  }
  const err = c.whole.err
  if (err) box.append(part('Error', el('pre', null, `${err.name}: ${err.message}`)))
  const raw = el('details', null, el('summary', null, 'Recorded JSON'))
  raw.addEventListener('toggle', () => {
    if (raw.open && raw.children.length === 1) raw.append(el('pre', null, json({ in: input, out, err })))
  })
  box.append(el('div', { class: 'part' }, raw))
  return box
}

function part(title: string, ...children: Child[]): HTMLElement {
  const node = el('section', { class: 'part' }, el('h5', null, title))
  for (const child of children) add(node, child)
  return node
}

function request(input: Json, changedPaths: readonly string[]): HTMLElement[] {
  const body = asObject(input.body)
  const where = [input.method, input.path].filter(Boolean).join(' ') || input.api || ''
  const nodes = [
    part(
      'Request',
      el('p', { class: 'mono' }, String(where)),
      input.headers ? el('pre', null, json(input.headers)) : null,
    ),
  ]
  const rest: Json = { ...body }
  for (const k of SYSTEM) {
    if (!(k in body)) continue
    const changed = changedPaths.some((p) => p.indexOf(`body.${k}`) === 0)
    nodes.push(part('System prompt', el('pre', { class: changed ? 'changed' : null }, textOf(body[k]))))
    delete rest[k]
  }
  for (const k of CONVERSATION) {
    const list = body[k]
    if (!Array.isArray(list)) continue
    delete rest[k]
    nodes.push(
      part(
        `Messages (${list.length})`,
        el(
          'ol',
          { class: 'transcript' },
          list.map((m, i) =>
            message(
              m,
              i,
              changedPaths.some((p) => p.indexOf(`body.${k}[${i}]`) === 0),
            ),
          ),
        ),
      ),
    )
  }
  const tools = body.tools
  if (Array.isArray(tools)) {
    delete rest.tools
    nodes.push(
      part(
        `Tools (${tools.length})`,
        tools.map((t) => {
          const o = asObject(t)
          const name = o.name || asObject(o.function).name || o.type || 'tool'
          return el('details', null, el('summary', null, String(name)), el('pre', null, json(t)))
        }),
      ),
    )
  }
  if (Object.keys(rest).length) nodes.push(part('Parameters', el('pre', null, json(rest))))
  return nodes
}

/** A message of the conversation as a chat transcript shows it: its role, its text, its calls. */
function message(m: unknown, index: number, changed: boolean): HTMLElement {
  const o = asObject(m)
  const role = String(o.role || o.type || 'item')
  const content = 'content' in o ? o.content : o.parts
  const rest: Json = { ...o }
  for (const k of ['role', 'content', 'parts', 'tool_calls', 'tool_call_id', 'type']) delete rest[k]
  const blocks: Child[] = []
  if (typeof content === 'string') blocks.push(el('div', { class: 'text' }, content))
  else if (Array.isArray(content)) {
    for (const p of content) {
      const po = asObject(p)
      if (typeof po.text === 'string') blocks.push(el('div', { class: 'text' }, po.text))
      else if (po.type === 'tool_use') blocks.push(callView(String(po.name), json(po.input, true)))
      else if (po.type === 'tool_result')
        blocks.push(
          el(
            'div',
            { class: 'result' },
            el('span', { class: 'muted' }, `result of ${po.tool_use_id}: `),
            textOf(po.content),
          ),
        )
      else if (po.functionCall)
        blocks.push(
          callView(String(asObject(po.functionCall).name), json(asObject(po.functionCall).args, true)),
        )
      else blocks.push(el('pre', null, json(p)))
    }
  } else if (content !== undefined && content !== null) blocks.push(el('pre', null, json(content)))
  const calls = o.tool_calls
  if (Array.isArray(calls)) {
    for (const call of calls) {
      const f = asObject(asObject(call).function)
      blocks.push(callView(String(f.name), String(f.arguments)))
    }
  }
  if (o.type === 'function_call') blocks.push(callView(String(o.name), String(o.arguments)))
  if (Object.keys(rest).length && o.type !== 'function_call') {
    const raw = el('details', { class: 'raw' }, el('summary', null, 'JSON'))
    raw.addEventListener('toggle', () => {
      if (raw.open && raw.children.length === 1) raw.append(el('pre', null, json(m)))
    })
    blocks.push(raw)
  }
  const to = o.tool_call_id ? ` \u00b7 result of ${o.tool_call_id}` : ''
  return el(
    'li',
    { class: `message role-${role.replace(/[^a-z_-]/gi, '')}${changed ? ' changed' : ''}` },
    el(
      'div',
      { class: 'role' },
      `message ${index + 1} \u00b7 ${role}${to}`,
      changed ? el('span', { class: 'changed-mark' }, ' (changed)') : null,
    ),
    blocks,
  )
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(textOf).join('\n')
  const o = asObject(value)
  if (typeof o.text === 'string') return o.text
  if (Array.isArray(o.parts)) return textOf(o.parts)
  return json(value)
}

function answer(c: CardData, out: unknown): HTMLElement {
  const a = c.model?.answer
  const o = asObject(out)
  const nodes: HTMLElement[] = [
    el(
      'p',
      null,
      `status ${o.status}${a?.finishReason ? ` \u00b7 finish ${a.finishReason}` : ''}${
        a?.usage ? ` \u00b7 ${a.usage.input} in / ${a.usage.output} out tokens` : ''
      }`,
    ),
  ]
  if (a?.text)
    nodes.push(
      el(
        'div',
        { class: 'message role-assistant' },
        el('div', { class: 'role' }, 'assistant'),
        el('div', { class: 'text' }, a.text),
      ),
    )
  if (a) {
    for (const t of a.toolCalls) {
      nodes.push(
        el(
          'div',
          { class: 'message role-assistant' },
          el('div', { class: 'role' }, `tool call${t.id ? ` ${t.id}` : ''}`),
          callView(t.name, t.arguments),
        ),
      )
    }
  }
  if (a?.error) nodes.push(el('pre', null, a.error))
  const body = asObject(o.body)
  const stream = a?.stream
  if (stream) {
    const items = (body[stream.key] || []) as StreamItem[]
    const events = el(
      'details',
      null,
      el('summary', null, `${plural(items.length, 'stream event')}, as recorded`),
    )
    events.addEventListener('toggle', () => {
      if (!events.open || events.children.length > 1) return
      events.append(
        el(
          'ol',
          { class: 'events mono' },
          items.map((item) => {
            const value = 'json' in item ? json(item.json, true) : 'data' in item ? item.data : item.text
            return el('li', null, `+${item.t} ms ${item.event ? `${item.event} ` : ''}${value}`)
          }),
        ),
      )
    })
    nodes.push(events)
    if (body.end) nodes.push(el('pre', null, `stream cut off: ${json(body.end, true)}`))
  } else if (o.body !== undefined) {
    nodes.push(
      el(
        'details',
        null,
        el('summary', null, 'Response body'),
        el('pre', null, json('json' in body ? body.json : body)),
      ),
    )
  }
  if (o.headers)
    nodes.push(el('details', null, el('summary', null, 'Response headers'), el('pre', null, json(o.headers))))
  return part(a?.streamed ? 'Answer, reassembled from the stream' : 'Answer', nodes)
}

// ---- the list of decisions: items, folds, blocks built when near ----
/** A decision of the list: a card of a run, or an aligned row of two. */
interface Item {
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

interface Fold {
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

const sides = data.sides
const compare = data.kind === 'compare'
const items: Item[] = []
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
const byId: Record<string, Item> = {}
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

function buildBlock(block: Block): void {
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
    let end = Math.min(i + BLOCK, list.length)
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
function openFold(fold: Fold, eager = BLOCK): void {
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
function outlineEntry(item: Item): HTMLElement {
  const c = item.card
  const tokens = tokensOf(c)
  const entry = el(
    'a',
    {
      class: `o s-${item.status.replace(/ /g, '-')} kind-${c.kind}`,
      href: `#${item.id}`,
      'data-id': item.id,
    },
    el('span', { class: 'o-seq' }, `#${c.seq}`),
    ` ${c.label}`,
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
  button.addEventListener('click', () => {
    openFold(fold)
    go(fold.items[0]!, true)
  })
  fold.outline = button
  return button
}

/** The text a search looks in: what the decision itself said and answered, not its whole history. */
function searchText(item: Item): string {
  if (item.text !== undefined) return item.text
  const c = item.card
  const parts: unknown[] = [c.label, c.key, item.status, c.kind]
  if (c.model) {
    const a = c.model.answer
    parts.push(
      c.model.request.model,
      c.model.request.last?.text,
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

function toolNameOf(item: Item): string[] {
  const c = item.card
  const names = c.tool ? [c.tool.name] : []
  if (c.model?.answer) for (const t of c.model.answer.toolCalls) names.push(t.name)
  return names
}

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
  if (entry) {
    entry.setAttribute('aria-current', 'true')
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

function step(by: number, differences: boolean): void {
  const from = current ? current.index : by > 0 ? -1 : items.length
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
const statusFilter = select('filter-status', 'Status', 'status', compare ? ['differences', ...statuses] : [])
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

// The decisions: folded where the same, blocks built when near.
const main = el('section', { id: 'decisions', 'aria-label': 'Decisions', class: compare ? 'compare' : 'run' })
const folds: Fold[] = []
const outlineNodes: HTMLElement[] = []
if (compare) {
  const ol = el('ol', { class: 'rows', 'aria-label': 'Decisions, aligned' })
  main.append(ol)
  let i = 0
  let plain: Item[] = []
  const flush = () => {
    // The stretch up to the first difference is built at once: the page opens on it.
    mount(ol, null, plain, BLOCK)
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
      folds.push(fold)
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
  mount(timeline, null, items, BLOCK)
  for (const item of items) outlineNodes.push(outlineEntry(item))
}
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
  const entry = (e.target as HTMLElement).closest('a.o')
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
  el('footer', null, `Written by ${data.generator}. Self-contained: this page loads nothing from anywhere.`),
)
// A permalink lands on its decision; a divergence opens on its first difference.
if (!fromHash() && firstDifference) go(firstDifference, false, false)
document.documentElement.setAttribute('data-ready', 'true')
