import { joinPath } from '../json-diff.js'

/** The text a reader gets by joining a stream's pieces, with where it came from. */
export interface ReassembledText {
  path: string
  text: string
}

interface Group {
  pieces: string[]
  events: number
}

/**
 * The texts that the streamed answers inside a JSON value reassemble to. A recorded stream
 * (`{ sse: [...] }`) carries an answer as many small deltas, so a secret can be split across
 * events with no single string holding it. Pieces are joined per field path, with array
 * positions dropped and the stream's own indexes kept (`index`, `output_index`, `content_index`),
 * so each content block, choice and tool-call argument stream is joined on its own whatever the
 * provider. Plain-text event data is joined as one more stream.
 */
export function reassembledTexts(value: unknown, path = ''): ReassembledText[] {
  const out: ReassembledText[] = []
  visitStreams(value, path, (events, at) => {
    const groups = new Map<string, Group>()
    for (const event of events) {
      if (typeof event !== 'object' || event === null) continue
      const { json, data } = event as { json?: unknown; data?: unknown }
      if (typeof data === 'string') add(groups, '.data', data)
      if (json !== undefined) collect(json, '', groups)
    }
    for (const [shape, group] of groups) {
      if (group.events < 2 || group.pieces.every((p) => p === group.pieces[0])) continue
      out.push({
        path: `${at}.sse[*]${shape} (reassembled from ${group.events} events)`,
        text: group.pieces.join(''),
      })
    }
  })
  return out
}

function visitStreams(value: unknown, path: string, fn: (events: unknown[], path: string) => void): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) visitStreams(value[i], `${path}[${i}]`, fn)
    return
  }
  if (typeof value !== 'object' || value === null) return
  const record = value as Record<string, unknown>
  if (Array.isArray(record.sse)) fn(record.sse, path || '(root)')
  for (const key of Object.keys(record)) {
    if (key !== 'sse') visitStreams(record[key], joinPath(path, key), fn)
  }
}

function add(groups: Map<string, Group>, shape: string, piece: string): void {
  const group = groups.get(shape)
  if (group) {
    group.pieces.push(piece)
    group.events++
  } else groups.set(shape, { pieces: [piece], events: 1 })
}

function collect(value: unknown, shape: string, groups: Map<string, Group>): void {
  if (typeof value === 'string') {
    add(groups, shape, value)
    return
  }
  if (Array.isArray(value)) {
    for (const item of value) collect(item, `${shape}[]`, groups)
    return
  }
  if (typeof value !== 'object' || value === null) return
  const record = value as Record<string, unknown>
  let scope = shape
  for (const [key, v] of Object.entries(record)) {
    if (typeof v === 'number' && (key === 'index' || key.endsWith('_index'))) scope += `{${key}=${v}}`
  }
  for (const [key, v] of Object.entries(record)) collect(v, `${scope}.${key}`, groups)
}
