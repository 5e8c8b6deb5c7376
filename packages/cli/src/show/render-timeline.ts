import type { CassetteHeader } from '@agent-tape/core/internal'
import { isRecordedResponse } from '@agent-tape/http'
import {
  compactArguments,
  type ModelAnswer,
  type ModelRequest,
  recordedStream,
} from '@agent-tape/http/internal'
import {
  type CassetteSummary,
  countKind,
  type DecisionSummary,
  describeCost,
  describeHarness,
  describeSource,
  formatCount,
  previewJson,
  tokens,
} from '@agent-tape/inspect'
import type { Style } from '../output/style.js'
import { displayCommand } from '../recorded-command/command-line.js'

export interface TimelineOptions {
  style: Style
  /** Longest preview of a JSON value or quoted string; `Infinity` shows everything. */
  maxPreview: number
}

const LABEL_WIDTH = 9

/** The readable timeline of one cassette: a header block, then each decision in the order it was made. */
export function renderTimeline(summary: CassetteSummary, options: TimelineOptions): string {
  const { style } = options
  const lines: string[] = [style.bold(summary.file)]
  const field = (label: string, value: string) =>
    lines.push(`  ${style.dim(label.padEnd(LABEL_WIDTH + 1))} ${value}`)
  const h = summary.header
  field('test', style.redactions(h.test))
  if (h.source?.kind === 'command') {
    const { argv, cwd, exitCode, signal } = h.source
    const ended = signal ? `ended by ${signal}` : exitCode === undefined ? '' : `, exit code ${exitCode}`
    field('command', style.redactions(`${displayCommand(argv)}  (in ${cwd}${signal ? `, ${ended}` : ended})`))
  } else if (h.source) field('source', style.redactions(describeSource(h.source)))
  if (h.source?.kind === 'capture' && h.source.input !== undefined)
    field('input', style.redactions(previewJson(h.source.input, options.maxPreview)))
  field('recorded', [h.recordedAt, ...runtime(h)].join(' · '))
  field('harness', describeHarness(h.harness))
  if (h.sdks && Object.keys(h.sdks).length > 0)
    field(
      'sdks',
      Object.entries(h.sdks)
        .map(([name, v]) => `${name} ${v}`)
        .join(', '),
    )
  if (h.env && Object.keys(h.env).length > 0) field('env', Object.keys(h.env).join(', '))
  const t = summary.totals
  const kinds = Object.entries(t.kinds).map(([kind, n]) => countKind(kind, n))
  field('decisions', `${formatCount(t.decisions)}${kinds.length > 0 ? `: ${kinds.join(', ')}` : ''}`)
  if (t.tokens) field('tokens', tokens(t.tokens))
  if (t.cost) field('cost', describeCost(t.cost))
  if (h.ignore?.length) field('ignored', `${h.ignore.join(', ')} (left out of every key; stored, redacted)`)
  field('time', `${formatCount(t.ms)} ms recorded`)
  for (const d of summary.decisions) {
    lines.push('')
    lines.push(...renderDecision(d, options))
  }
  return `${lines.join('\n')}\n`
}

export function renderDecision(d: DecisionSummary, options: TimelineOptions): string[] {
  const { style } = options
  const position = `step ${d.step}${d.lane !== undefined ? ` (lane ${JSON.stringify(d.lane)})` : ''}`
  const title = `${style.bold(`#${d.seq}`)}  ${position}  ${style.cyan(d.label)}  ${style.dim(d.key)}  ${formatCount(d.ms)} ms`
  const lines = [title]
  const field = (label: string, value: string) => {
    const [first, ...rest] = value.split('\n')
    lines.push(`    ${style.dim(label.padEnd(LABEL_WIDTH))} ${style.redactions(first ?? '')}`)
    for (const line of rest) lines.push(`    ${' '.repeat(LABEL_WIDTH)} ${style.redactions(line)}`)
  }
  const preview = (value: unknown) => previewJson(value, options.maxPreview)
  if (d.model) {
    field('request', requestLine(d.model.request))
    if (d.model.request.last) {
      const { role, text } = d.model.request.last
      field('last', `${role}: ${previewJson(text, options.maxPreview)}`)
    }
    if (d.model.answer) renderAnswer(d.model.answer, d.model.request, field, style)
  }
  if (d.tool) field('args', preview(d.tool.args))
  if (d.env) {
    for (const [key, hash] of Object.entries(d.env)) field(key, hash === null ? 'unset' : `set (${hash})`)
  }
  if (d.input !== undefined) field('input', preview(d.input))
  if (d.output !== undefined) {
    if (isRecordedResponse(d.output)) {
      const type = d.output.headers['content-type']
      field('status', `${d.output.status}${type ? ` · ${type}` : ''}`)
      const body = d.output.body
      if (body && 'json' in body) field('body', preview(body.json))
      else if (body && 'text' in body) field('body', preview(body.text))
      else if (body && 'base64' in body)
        field('body', `${Math.floor((body.base64.length * 3) / 4)} bytes (base64)`)
      else if (recordedStream(body)) field('body', `${recordedStream(body)?.items.length} stream events`)
    } else {
      field(d.tool ? 'result' : 'output', preview(d.output))
    }
  }
  if (d.error) field('error', style.red(`${d.error.name}: ${d.error.message}`))
  return lines
}

function renderAnswer(
  answer: ModelAnswer,
  request: ModelRequest,
  field: (label: string, value: string) => void,
  style: Style,
): void {
  const parts = [answer.streamed ? 'streamed' : 'json', String(answer.status)]
  if (answer.model && answer.model !== request.model) parts.push(answer.model)
  if (answer.usage) parts.push(`${tokens(answer.usage)} tokens`)
  if (answer.finishReason) parts.push(`finish ${answer.finishReason}`)
  field('answer', parts.join(' · '))
  if (answer.text) field('text', answer.text)
  for (const call of answer.toolCalls) field('call', `${call.name} ${compactArguments(call.arguments)}`)
  if (answer.error) field('error', style.red(answer.error))
}

function requestLine(request: ModelRequest): string {
  const where = [request.api, request.method, request.path].filter(Boolean).join(' ')
  const parts = [where || 'model request', plural(request.messages, 'message'), plural(request.tools, 'tool')]
  return parts.join(' · ')
}

function runtime(h: CassetteHeader): string[] {
  const r = h.runtime ?? {}
  const parts: string[] = []
  if (r.agentTape) parts.push(`agent-tape ${r.agentTape}`)
  if (r.node) parts.push(`node ${r.node}${r.platform ? ` (${r.platform})` : ''}`)
  return parts
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}
