// The whole decision, built when it is opened: the conversation as a transcript, the answer,
// the recorded JSON.
import type { CardData, RowData } from '../../page-data.js'
import { resolve } from './data.js'
import { add, asObject, type Child, clip, copyButton, el, type Json, json, plural } from './dom.js'

interface StreamItem {
  t: number
  event?: string
  json?: unknown
  data?: string
  text?: string
}

/** A tool call's arguments as a small table: a row a name, its value as JSON when not a text. */
export function argsTable(args: unknown): Child {
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

export function callView(name: string, args: string): HTMLElement {
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

const SYSTEM = ['system', 'instructions', 'systemInstruction', 'system_instruction']
const CONVERSATION = ['messages', 'input', 'contents']

export function wholeDecision(c: CardData, row?: RowData): HTMLElement {
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

export function part(title: string, ...children: Child[]): HTMLElement {
  const node = el('section', { class: 'part' }, el('h5', null, title))
  for (const child of children) add(node, child)
  return node
}

export function request(input: Json, changedPaths: readonly string[]): HTMLElement[] {
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
export function message(m: unknown, index: number, changed: boolean): HTMLElement {
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

export function answer(c: CardData, out: unknown): HTMLElement {
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
