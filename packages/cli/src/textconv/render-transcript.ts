import type { Cassette } from '@agent-tape/core/internal'
import { isRecordedResponse } from '@agent-tape/http'
import { type ModelAnswer, recordedStream } from '@agent-tape/http/internal'
import {
  type CassetteSummary,
  countKind,
  type DecisionSummary,
  describeCost,
  describeHarness,
  describeSource,
  formatCount,
  type RequestConversation,
  readConversation,
  summarizeCassette,
  tokens,
} from '@agent-tape/inspect'
import { wrap } from '../args.js'

/** Where a value starts on its line, and how wide its text is wrapped. */
const LABEL_WIDTH = 10
const INDENT = 4
const TEXT_WIDTH = 88
// The narrowest a nested JSON value is wrapped to, however deep.
const MIN_WIDTH = 40
// A sentence ends at . ! or ? before the capital, digit or quote that starts the next.
const SENTENCE_END = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(])/u

/**
 * A cassette as a plain transcript for `git diff` (`agent-tape textconv`): the recording's
 * provenance, then each decision in order with what it asked and what came back, one fact a
 * line. Nothing is cut, nothing depends on a terminal, and what changes on every recording
 * without meaning anything (keys, durations, ids, env hashes, which are salted per cassette) is
 * left out, so that a re-record's diff is the words that changed. Text is printed a sentence
 * a line, broken at a fixed width on spaces, and long JSON a member a line: an edit changes the
 * lines it touches, not the rest of its paragraph.
 */
export function renderTranscript(file: string, cassette: Cassette): string {
  const summary = summarizeCassette(file, cassette)
  const lines = renderHeader(summary, cassette)
  const before = new Map<string, RequestConversation>()
  summary.decisions.forEach((d, i) => {
    lines.push('', heading(d))
    const record = cassette.decisions[i]!
    const fields = new Fields(lines)
    if (d.model) {
      const lane = d.lane ?? ''
      const conversation = readConversation(record.in)
      renderRequest(d, conversation, before.get(lane), fields)
      before.set(lane, conversation)
      if (d.model.answer) renderAnswer(d.model.answer, d.model.request.model, fields)
      else if (d.output !== undefined) fields.json('output', d.output)
    } else renderOther(d, fields)
    if (d.error) fields.text('error', `${d.error.name}: ${d.error.message}`)
  })
  return `${lines.join('\n')}\n`
}

function renderHeader(summary: CassetteSummary, cassette: Cassette): string[] {
  const h = summary.header
  const lines = [`agent-tape cassette (format ${h.agentTape}, key scheme ${h.keyScheme})`]
  const fields = new Fields(lines, 0)
  fields.text('test', h.test)
  if (h.source) fields.text('source', describeSource(h.source))
  fields.text('recorded', h.recordedAt)
  for (const model of modelsOf(summary, cassette)) fields.text('model', model)
  const runtime = h.runtime ?? {}
  if (runtime.agentTape) fields.text('agent-tape', runtime.agentTape)
  if (runtime.node) fields.text('node', `${runtime.node}${runtime.platform ? ` (${runtime.platform})` : ''}`)
  for (const [name, version] of Object.entries(h.sdks ?? {})) fields.text('sdk', `${name} ${version}`)
  fields.text('harness', describeHarness(h.harness))
  for (const key of Object.keys(h.env ?? {})) fields.text('env', key)
  for (const path of h.ignore ?? []) fields.text('ignored', path)
  const t = summary.totals
  const kinds = Object.entries(t.kinds).map(([kind, n]) => countKind(kind, n))
  fields.text('decisions', `${formatCount(t.decisions)}${kinds.length > 0 ? `: ${kinds.join(', ')}` : ''}`)
  if (t.tokens) fields.text('tokens', tokens(t.tokens))
  if (t.cost) fields.text('cost', describeCost(t.cost))
  return lines
}

/** The models a run asked for, and those that answered under another name, in order. */
function modelsOf(summary: CassetteSummary, cassette: Cassette): string[] {
  const models: string[] = []
  for (const [i, d] of summary.decisions.entries()) {
    // A model call taped in code (`tape.call('llm', { model, … })`) names its model in its input.
    const input = cassette.decisions[i]!.in as { model?: unknown } | undefined
    if (!d.model) continue
    const asked = d.model.request.model ?? (typeof input?.model === 'string' ? input.model : undefined)
    const answered = d.model.answer?.model
    const line =
      asked === undefined
        ? answered
        : answered === undefined || answered === asked
          ? asked
          : `${asked} (answered by ${answered})`
    if (line !== undefined && !models.includes(line)) models.push(line)
  }
  return models
}

function heading(d: DecisionSummary): string {
  const lane = d.lane !== undefined ? `  lane ${JSON.stringify(d.lane)}` : ''
  return `step ${d.step}${lane}  ${d.label}`
}

/**
 * A model request: where it went, then what it adds to the request before it in its lane (the
 * parameters, tools and system prompt when they changed, the messages after those the two
 * share), so that a run of forty steps reads as forty turns and not as its history forty times.
 */
function renderRequest(
  d: DecisionSummary,
  conversation: RequestConversation,
  previous: RequestConversation | undefined,
  fields: Fields,
): void {
  const r = d.model!.request
  fields.text('request', [r.api, r.method, r.path].filter(Boolean).join(' ') || 'model request')
  // A cassette read shares the messages a request repeats with the one before it: the same objects.
  const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b)
  if (!previous || !same(previous.params, conversation.params)) {
    for (const [name, value] of Object.entries(conversation.params)) fields.json('param', value, `${name}: `)
  }
  const toolsChanged = !previous || !same(previous.tools, conversation.tools)
  if (toolsChanged)
    for (const tool of conversation.tools) fields.json('tool', tool.definition, `${tool.name} `)
  if (!toolsChanged && conversation.tools.length > 0)
    fields.text('tools', `${conversation.tools.map((t) => t.name).join(', ')} (as before)`)
  if (conversation.system !== undefined && (!previous || previous.system !== conversation.system))
    fields.text('system', conversation.system)
  const items = conversation.items
  let shared = 0
  if (previous) while (shared < items.length && same(items[shared], previous.items[shared])) shared++
  const total = items.length
  if (total > 0) {
    const range = shared + 1 === total ? `${total}` : `${shared + 1} to ${total}`
    fields.text(
      'messages',
      shared > 0 ? `${range} of ${total} (1 to ${shared} as before)` : `${range} of ${total}`,
    )
  }
  for (const message of conversation.messages.slice(shared)) {
    for (const part of message.parts) {
      // A message that is JSON text (a tool's result) is printed as JSON, a member a line when long.
      if (part.type === 'call') fields.call(message.role, `call ${part.name}`, part.arguments)
      else fields.json(message.role, parseText(part.type === 'text' ? part.text : part.value))
    }
  }
}

function renderAnswer(answer: ModelAnswer, asked: string | undefined, fields: Fields): void {
  fields.text('answer', `${answer.streamed ? 'streamed' : 'json'}, status ${answer.status}`)
  if (answer.model && answer.model !== asked) fields.text('answered', answer.model)
  if (answer.text) fields.text('text', answer.text)
  for (const call of answer.toolCalls) fields.call('call', call.name, call.arguments)
  if (answer.finishReason) fields.text('finish', answer.finishReason)
  if (answer.usage) fields.text('tokens', tokens(answer.usage))
  if (answer.error) fields.text('error', answer.error)
}

/** A tool call, an environment read, an MCP request, any other HTTP request. */
function renderOther(d: DecisionSummary, fields: Fields): void {
  if (d.tool) fields.json('args', d.tool.args)
  for (const [key, hash] of Object.entries(d.env ?? {})) fields.text(key, hash === null ? 'unset' : 'set')
  if (d.input !== undefined) fields.json('input', d.input)
  const output = d.output
  if (output === undefined) return
  if (!isRecordedResponse(output)) {
    fields.json(d.tool ? 'result' : 'output', parseText(output))
    return
  }
  const type = output.headers['content-type']
  fields.text('status', `${output.status}${type ? ` ${type}` : ''}`)
  const body = output.body
  const stream = recordedStream(body)
  if (body && 'json' in body) fields.json('body', body.json)
  else if (body && 'text' in body) fields.text('body', body.text)
  else if (body && 'base64' in body) fields.text('body', `${Math.floor((body.base64.length * 3) / 4)} bytes`)
  else if (stream) fields.text('body', `${stream.items.length} stream events`)
}

/** A value that is JSON text (a tool's result, as a message carries it), parsed. */
function parseText(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

/** Lines of `label  value`, a value of several lines continued under its first. */
class Fields {
  constructor(
    private readonly lines: string[],
    private readonly indent = INDENT,
  ) {}

  text(label: string, value: string): void {
    this.push(label, value.split('\n').flatMap(wrapText))
  }

  /** A value in one line when it fits, else a member a line (see {@link jsonLines}); a string alone as text. */
  json(label: string, value: unknown, head = ''): void {
    if (typeof value === 'string' && head === '') this.text(label, value)
    else this.push(label, jsonLines(value, TEXT_WIDTH, head))
  }

  /** A tool call: its name, then its arguments as JSON when they parse, else as the model sent them. */
  call(label: string, name: string, args: string): void {
    const parsed = parseText(args)
    if (typeof parsed === 'string') this.text(label, `${name} ${args}`)
    else this.json(label, parsed, `${name} `)
  }

  private push(label: string, values: readonly string[]): void {
    const pad = ' '.repeat(this.indent)
    const [first = '', ...rest] = values
    this.lines.push(`${pad}${label.padEnd(LABEL_WIDTH)} ${first}`.trimEnd())
    for (const line of rest) this.lines.push(`${pad}${' '.repeat(LABEL_WIDTH)} ${line}`.trimEnd())
  }
}

/**
 * One line of text a sentence a line, each broken at the width on spaces (a long word stays
 * whole): an edit changes its sentence's lines, whatever their length before and after.
 */
function wrapText(line: string): string[] {
  const lines = line.split(SENTENCE_END).flatMap((sentence) => wrap(sentence, TEXT_WIDTH))
  return lines.length > 0 ? lines : ['']
}

/**
 * JSON as a reader scans it and a line diff compares it: a value on one line when it fits in
 * `width` (after `head`, its member name), else its members one a line, each printed the same
 * way; a long string is broken at spaces.
 */
function jsonLines(value: unknown, width: number, head = ''): string[] {
  const compact = JSON.stringify(value) ?? String(value)
  if (head.length + compact.length <= width) return [`${head}${compact}`]
  if (typeof value !== 'object' || value === null) {
    const [first = '', ...rest] = wrap(compact, Math.max(MIN_WIDTH, width - head.length))
    return [`${head}${first}`, ...rest.map((line) => `  ${line}`)]
  }
  const entries: [string | undefined, unknown][] = Array.isArray(value)
    ? value.map((item) => [undefined, item])
    : Object.entries(value)
  if (entries.length === 0) return [`${head}${compact}`]
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}']
  const lines = [`${head}${open}`]
  entries.forEach(([key, item], i) => {
    const inner = jsonLines(item, width - 2, key === undefined ? '' : `${JSON.stringify(key)}: `)
    if (i < entries.length - 1) inner[inner.length - 1] += ','
    for (const line of inner) lines.push(`  ${line}`)
  })
  lines.push(close)
  return lines
}
