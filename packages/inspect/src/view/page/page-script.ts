/**
 * The page's script: draws the page from the JSON embedded in it (`#agent-tape-data`). Values
 * only ever become text nodes and attributes, never HTML; a decision's whole request and answer
 * are built when it is opened, so a long run opens fast.
 *
 * It runs in the browser, not in Node: it is type-checked against the DOM and the page's data
 * (`tsconfig.page.json`), and the build compiles it to ES2017 and inlines it in the page as one
 * function (scripts/build-page.mjs). It imports types only, and nothing at run time: the page's
 * CSP holds its hash and allows no other script and no request.
 */
import type { CardData, PageData, RowData, SideData, SideRole } from '../page-data.js'

type Json = Record<string, unknown>
/** What `el` and `add` take as children: nodes, text, lists of them; `null`, `undefined` and `false` are skipped. */
type Child = Node | string | number | null | undefined | false | Child[]
type Props = Record<string, string | number | boolean | null | undefined | EventListener>
/** Adds one field to a card: its name (what a change highlights), its label and its value. */
type AddField = (name: string, label: string, value: string | undefined) => void
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
const ROLES: Record<SideRole, string> = {
  recording: 'Recording',
  run: 'This run',
  before: 'Before',
  after: 'After',
}

// Every value reaches the page as a text node or an attribute: nothing is parsed as HTML.
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

/** A value of the data with its references into `data.shared` replaced by what they name. */
function resolve(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolve)
  if (!value || typeof value !== 'object') return value
  const object = value as Json
  const keys = Object.keys(object)
  if (keys.length === 1 && keys[0] === REF) return resolve(data.shared[object[REF] as number])
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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

function laneName(lane: string | undefined): string | undefined {
  return lane === '' ? 'main' : lane
}

function place(card: CardData): string {
  return `step ${card.step}${card.lane ? ` \u00b7 lane ${card.lane}` : ''}`
}

// ---- the head of a side: the cassette's header and totals ----
function head(side: SideData): HTMLElement {
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
}

// ---- a card: one decision in a few lines, and the whole of it on request ----
function card(
  c: CardData,
  side: SideData,
  sideIndex: number,
  highlight?: readonly string[],
  changedPaths?: readonly string[],
): HTMLElement {
  const id = `d${sideIndex}-${c.seq}`
  const changed = highlight || []
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
  if (c.model) modelFields(c, field, changedPaths || [])
  if (c.tool) field('args', 'args', clip(json(c.tool.args, true), 400))
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
  const bar = c.missed ? null : el('div', { class: 'bar', 'aria-hidden': 'true' })
  if (bar) bar.style.width = `${Math.max(0.5, (100 * c.ms) / side.maxMs)}%`
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
    if (whole.open && whole.children.length === 1) whole.append(wholeDecision(c, changedPaths || []))
  })
  const kind = ['llm', 'tool', 'env'].indexOf(c.kind) === -1 ? 'other' : c.kind
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
    el(
      'div',
      { class: 'card-meta' },
      el('span', { class: changed.indexOf('position') !== -1 ? 'changed' : null }, place(c)),
      el('span', null, c.missed ? 'not answered' : `${c.ms} ms`),
      el('span', { class: 'mono' }, c.key),
    ),
    bar,
    fields,
    whole,
  )
}

function modelFields(c: CardData, field: AddField, changedPaths: readonly string[]): void {
  const model = c.model!
  const r = model.request
  const a = model.answer
  const changed = changedMessages(c, changedPaths)
  field('model', 'model', (r.model || '') + (a?.model && a.model !== r.model ? ` \u2192 ${a.model}` : ''))
  field('request', 'request', [r.api, r.method, r.path].filter(Boolean).join(' '))
  field(
    'messages',
    'messages',
    String(r.messages) +
      (changed ? `, changed: ${changed}` : '') +
      (r.last ? `, last ${r.last.role}: ${clip(r.last.text, 240)}` : ''),
  )
  field('tools', 'tools', model.tools.length ? model.tools.join(', ') : 'none')
  if (!a) return
  const events = plural(a.stream ? a.stream.count : 0, 'event')
  field('answer', 'answer', `${a.streamed ? `streamed (${events})` : 'json'} \u00b7 ${a.status}`)
  field('text', 'text', a.text ? clip(a.text, 600) : '')
  field('calls', 'calls', a.toolCalls.map((t) => `${t.name} ${compactArgs(t.arguments)}`).join('\n'))
  field('finish', 'finish', a.finishReason)
  field('tokens', 'tokens', a.usage ? `${a.usage.input} in / ${a.usage.output} out` : '')
  field('error', 'error', a.error)
}

// Which messages of a request an input change touched: 'message 1 (system)', 'system prompt'.
function changedMessages(c: CardData, paths: readonly string[]): string {
  let input: Json | undefined
  const names: string[] = []
  for (const p of paths) {
    const m = /^body\.(messages|input|contents)\[(\d+)\]/.exec(p)
    let name = /^body\.(system|instructions|systemInstruction|system_instruction)\b/.test(p)
      ? 'system prompt'
      : null
    if (m) {
      input = input || asObject(resolve(c.whole.in))
      const list = (asObject(input.body)[m[1]!] || []) as unknown[]
      const item = asObject(list[+m[2]!])
      name = `message ${+m[2]! + 1} (${item.role || item.type || 'item'})`
    }
    if (name && names.indexOf(name) === -1) names.push(name)
  }
  return names.join(', ')
}

function compactArgs(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text))
  } catch {
    return text
  }
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

// ---- the whole decision: the full request, the whole answer, the recorded JSON ----
const SYSTEM = ['system', 'instructions', 'systemInstruction', 'system_instruction']
const CONVERSATION = ['messages', 'input', 'contents']

function wholeDecision(c: CardData, changedPaths: readonly string[]): HTMLElement {
  const input = resolve(c.whole.in)
  const out = resolve(c.whole.out)
  const box = el('div', { class: 'whole-body' })
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
    nodes.push(part('System prompt', el('pre', null, textOf(body[k]))))
    delete rest[k]
  }
  for (const k of CONVERSATION) {
    const list = body[k]
    if (!Array.isArray(list)) continue
    delete rest[k]
    nodes.push(
      part(
        `Messages (${list.length})`,
        list.map((m, i) =>
          message(
            m,
            changedPaths.some((p) => p.indexOf(`body.${k}[${i}]`) === 0),
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

function message(m: unknown, changed: boolean): HTMLElement {
  const o = asObject(m)
  const role = o.role || o.type || 'item'
  const content = 'content' in o ? o.content : o.parts
  const rest: Json = { ...o }
  delete rest.role
  delete rest.content
  delete rest.parts
  const blocks: HTMLElement[] = []
  if (typeof content === 'string') blocks.push(el('pre', null, content))
  else if (Array.isArray(content)) {
    for (const p of content) {
      const po = asObject(p)
      blocks.push(
        el('pre', null, typeof po.text === 'string' && Object.keys(po).length <= 2 ? po.text : json(p)),
      )
    }
  } else if (content !== undefined && content !== null) blocks.push(el('pre', null, json(content)))
  if (Object.keys(rest).length) blocks.push(el('pre', null, json(rest)))
  return el(
    'div',
    { class: `message${changed ? ' changed' : ''}` },
    el(
      'div',
      { class: 'role' },
      String(role),
      changed ? el('span', { class: 'sr-only' }, ' (changed)') : null,
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
  if (a?.text) nodes.push(el('pre', null, a.text))
  if (a) {
    for (const t of a.toolCalls) {
      let args: string
      try {
        args = json(JSON.parse(t.arguments))
      } catch {
        args = t.arguments
      }
      const title = `tool call ${t.name}${t.id ? ` (${t.id})` : ''}`
      nodes.push(el('div', { class: 'message' }, el('div', { class: 'role' }, title), el('pre', null, args)))
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
  if (o.headers) {
    nodes.push(el('details', null, el('summary', null, 'Response headers'), el('pre', null, json(o.headers))))
  }
  return part(a?.streamed ? 'Answer, reassembled from the stream' : 'Answer', nodes)
}

// ---- a run: steps down the page, lanes side by side ----
function timeline(side: SideData, sideIndex: number): HTMLElement {
  const lanes = side.lanes
  const grid = el('div', {
    class: 'timeline',
    'aria-label': `Decisions by step${lanes.length > 1 ? ' and lane' : ''}`,
  })
  grid.style.setProperty('--lanes', String(Math.max(1, lanes.length)))
  if (lanes.length > 1) {
    grid.append(el('div', { 'aria-hidden': 'true' }))
    for (const l of lanes)
      grid.append(el('div', { class: 'lane-head', 'aria-hidden': 'true' }, `lane ${laneName(l)}`))
  }
  const steps: { step: number; cells: CardData[][] }[] = []
  const byStep: Record<number, { step: number; cells: CardData[][] }> = {}
  for (const c of side.cards) {
    let row = byStep[c.step]
    if (!row) {
      row = byStep[c.step] = { step: c.step, cells: lanes.map(() => []) }
      steps.push(row)
    }
    row.cells[lanes.indexOf(c.lane)]!.push(c)
  }
  steps.sort((x, y) => x.step - y.step)
  for (const row of steps) {
    grid.append(
      el(
        'section',
        { class: 'step', 'aria-label': `Step ${row.step}` },
        el('h3', { class: 'step-label' }, `step ${row.step}`),
        row.cells.map((cards, i) =>
          el(
            'div',
            { class: 'cell', 'data-lane': laneName(lanes[i]) },
            cards.length && lanes.length > 1
              ? el('div', { class: 'cell-lane' }, `lane ${laneName(lanes[i])}`)
              : null,
            cards.map((c) => card(c, side, sideIndex)),
          ),
        ),
      ),
    )
  }
  return grid
}

// ---- two runs: aligned decisions side by side, a verdict each ----
function rows(a: SideData, b: SideData): HTMLElement {
  return el(
    'ol',
    { class: 'rows', 'aria-label': 'Decisions, aligned' },
    (data.rows || []).map((row) => {
      const x = row.a === undefined ? undefined : a.cards[row.a]
      const y = row.b === undefined ? undefined : b.cards[row.b]
      // A row has a card on one side at least.
      const any = (y || x)!
      const paths = row.input.map((l) => l[0])
      const seq = x && y && x.seq !== y.seq ? `#${x.seq} \u2192 #${y.seq}` : `#${any.seq}`
      const missing =
        row.verdict === 'not reached'
          ? 'the run stopped before this decision'
          : `not in ${ROLES[b.role].toLowerCase()}`
      return el(
        'li',
        { class: `row v-${row.verdict.replace(/ /g, '-')}`, 'data-verdict': row.verdict },
        el(
          'p',
          { class: 'row-verdict' },
          el('span', { class: 'badge' }, row.verdict),
          el('strong', null, seq),
          `${place(any)} \u00b7 ${any.label}`,
        ),
        el(
          'div',
          { class: 'pair' },
          el(
            'div',
            { class: 'side' },
            el('div', { class: 'side-label' }, ROLES[a.role]),
            x
              ? card(x, a, 0, row.fields, paths)
              : el('div', { class: 'empty' }, `not in ${ROLES[a.role].toLowerCase()}`),
          ),
          el(
            'div',
            { class: 'side' },
            el('div', { class: 'side-label' }, ROLES[b.role]),
            y ? card(y, b, 1, row.fields, paths) : el('div', { class: 'empty' }, missing),
          ),
        ),
        changes(row, a, b),
      )
    }),
  )
}

function changes(row: RowData, a: SideData, b: SideData): HTMLElement | null {
  if (!row.input.length && !row.output.length) return null
  const box = el('div', { class: 'changes' })
  const names = `${ROLES[a.role].toLowerCase()} \u2192 ${ROLES[b.role].toLowerCase()}`
  if (row.input.length) {
    box.append(
      el('h5', null, `Input changed (${names})`),
      el(
        'ul',
        { class: 'mono' },
        row.input.map((l) =>
          el('li', null, `${l[0]}: `, el('del', null, l[1]), ' \u2192 ', el('ins', null, l[2])),
        ),
      ),
    )
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

const app = document.getElementById('app')!
const sides = data.sides
app.append(
  el('a', { class: 'skip', href: '#decisions' }, 'Skip to the decisions'),
  el(
    'header',
    null,
    el('h1', null, data.title),
    data.verdict ? el('p', { class: 'verdict-line' }, data.verdict) : null,
  ),
)
const heads = el('div', { class: 'heads' }, sides.map(head))
heads.style.setProperty('--sides', String(sides.length))
app.append(heads)
const body = el('section', { id: 'decisions', 'aria-label': 'Decisions' })
body.append(data.kind === 'compare' ? rows(sides[0]!, sides[1]!) : timeline(sides[0]!, 0))
app.append(
  body,
  el('footer', null, `Written by ${data.generator}. Self-contained: this page loads nothing from anywhere.`),
)
document.documentElement.setAttribute('data-ready', 'true')
