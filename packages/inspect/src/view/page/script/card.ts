// A card: one decision in a few lines, and the whole of it on request.
import type { CardData, RowData, SideData } from '../../page-data.js'
import { place, resolve, tokensOf } from './data.js'
import { asObject, type Child, clip, copyButton, el, json, plural, seconds } from './dom.js'
import { argsTable, callView, wholeDecision } from './whole.js'

type AddField = (name: string, label: string, value: Child) => void

export function card(c: CardData, side: SideData, id: string, row?: RowData): HTMLElement {
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
          ? `, last ${r.last.role}: ${clip(String(resolve(r.last.text)), 240)}`
          : ''),
  )
  // A session declares its tools once (in `session.update`, `setup`), not with each message.
  field('tools', 'tools', model.tools.length ? model.tools.join(', ') : c.kind === 'websocket' ? '' : 'none')
  if (!a) return
  const events = plural(a.stream ? a.stream.count : 0, 'event')
  field('answer', 'answer', `${a.streamed ? `streamed (${events})` : 'json'} \u00b7 ${a.status}`)
  field('text', 'text', a.text ? clip(a.text, 600) : '')
  field('calls', 'calls', a.toolCalls.length ? a.toolCalls.map((t) => callView(t.name, t.arguments)) : '')
  field('finish', 'finish', a.finishReason)
  field('tokens', 'tokens', a.usage ? `${a.usage.input} in / ${a.usage.output} out` : '')
  field('error', 'error', a.error)
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
