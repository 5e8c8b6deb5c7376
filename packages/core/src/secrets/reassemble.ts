import { joinPath } from '../json-path.js'

/** The text a reader gets by joining a stream's pieces, with where it came from. */
export interface ReassembledText {
  path: string
  text: string
  /** How many events carried it. */
  pieces: number
}

type Step = string | number

interface Piece {
  text: string
  /** Where the piece sits in the events array (event index, then keys), when asked for. */
  at?: Step[]
}

/**
 * Fields of a recorded body that hold a stream's items, whatever its format: server-sent events
 * (`sse`), newline-delimited JSON (`ndjson`), framed binary messages (`frames`).
 */
export const STREAM_KEYS: ReadonlySet<string> = new Set(['sse', 'ndjson', 'frames'])

interface Group {
  shape: string
  pieces: Piece[]
}

/**
 * The texts that the streamed answers inside a JSON value reassemble to. A recorded stream
 * (`{ sse: [...] }`, `{ ndjson: [...] }`, …) carries an answer as many small deltas, so a secret can be split across
 * events with no single string holding it. Pieces are joined per field path, with array
 * positions dropped and the stream's own indexes kept (`index`, `output_index`, `content_index`),
 * so each content block, choice and tool-call argument stream is joined on its own whatever the
 * provider. Plain-text event data is joined as one more stream.
 */
export function reassembledTexts(value: unknown, path = '', singles = false): ReassembledText[] {
  const out: ReassembledText[] = []
  visitStreams(value, path, (events, at, key) => {
    for (const group of streamGroups(events, false, singles)) {
      const n = group.pieces.length
      out.push({
        path: `${at}.${key}[*]${group.shape}${n > 1 ? ` (reassembled from ${n} events)` : ''}`,
        text: group.pieces.map((p) => p.text).join(''),
        pieces: n,
      })
    }
  })
  return out
}

/**
 * A copy of `value` whose streams have every secret found in their reassembled text cut out
 * of the pieces that carry it, with the marker `mark(rule)` left where the secret began, so a
 * reader joining the pieces sees the marker in its place.
 */
export function redactStreams(
  value: unknown,
  find: (text: string, pieces: number) => { start: number; end: number; rule: string }[],
): unknown {
  return mapStreams(value, (events) => {
    let copy: unknown[] | undefined
    for (const group of streamGroups(events, true, true)) {
      const matches = find(group.pieces.map((p) => p.text).join(''), group.pieces.length)
      if (matches.length === 0) continue
      copy ??= structuredClone(events)
      let offset = 0
      for (const piece of group.pieces) {
        const start = offset
        const end = offset + piece.text.length
        offset = end
        let text = ''
        for (let i = start; i < end; i++) {
          const match = matches.find((m) => i >= m.start && i < m.end)
          if (!match) text += piece.text[i - start]
          else if (i === match.start) text += `[REDACTED:${match.rule}]`
        }
        if (text !== piece.text) setAt(copy, piece.at!, text)
      }
    }
    return copy ?? events
  })
}

/**
 * The fields of a stream's events, each with its pieces in order. Without `singles`, only the
 * fields a reader must join (more than one piece, not all alike); with it, every field.
 */
function streamGroups(events: unknown[], withPlaces: boolean, singles: boolean): Group[] {
  const groups = new Map<string, Group>()
  for (let i = 0; i < events.length; i++) {
    const event = events[i]
    if (typeof event !== 'object' || event === null) continue
    const { json, data, text } = event as { json?: unknown; data?: unknown; text?: unknown }
    if (typeof data === 'string')
      add(groups, '.data', { text: data, ...(withPlaces ? { at: [i, 'data'] } : {}) })
    if (typeof text === 'string') add(groups, '.text', { text, ...(withPlaces ? { at: [i, 'text'] } : {}) })
    if (json !== undefined) collect(json, '', withPlaces ? [i, 'json'] : undefined, groups)
  }
  const out: Group[] = []
  for (const group of groups.values()) {
    const varied = group.pieces.some((p) => p.text !== group.pieces[0]!.text)
    if (group.pieces.length > 1 && varied) out.push(group)
    // A field every event repeats (an id, an object type) is read once, not joined.
    else if (singles) out.push({ shape: group.shape, pieces: [group.pieces[0]!] })
  }
  return out
}

function visitStreams(
  value: unknown,
  path: string,
  fn: (events: unknown[], path: string, key: string) => void,
): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) visitStreams(value[i], `${path}[${i}]`, fn)
    return
  }
  if (typeof value !== 'object' || value === null) return
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) {
    const child = record[key]
    if (STREAM_KEYS.has(key) && Array.isArray(child)) fn(child, path || '(root)', key)
    else visitStreams(child, joinPath(path, key), fn)
  }
}

function mapStreams(value: unknown, fn: (events: unknown[]) => unknown[]): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const next = mapStreams(value[i], fn)
      if (next === value[i]) continue
      copy ??= value.slice()
      copy[i] = next
    }
    return copy ?? value
  }
  if (typeof value !== 'object' || value === null) return value
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  for (const key of Object.keys(record)) {
    const child = record[key]
    const next = STREAM_KEYS.has(key) && Array.isArray(child) ? fn(child) : mapStreams(child, fn)
    if (next === child) continue
    copy ??= { ...record }
    copy[key] = next
  }
  return copy ?? value
}

function add(groups: Map<string, Group>, shape: string, piece: Piece): void {
  const group = groups.get(shape)
  if (group) group.pieces.push(piece)
  else groups.set(shape, { shape, pieces: [piece] })
}

function collect(value: unknown, shape: string, at: Step[] | undefined, groups: Map<string, Group>): void {
  if (typeof value === 'string') {
    add(groups, shape, at ? { text: value, at } : { text: value })
    return
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) collect(value[i], `${shape}[]`, at && [...at, i], groups)
    return
  }
  if (typeof value !== 'object' || value === null) return
  const record = value as Record<string, unknown>
  let scope = shape
  for (const [key, v] of Object.entries(record)) {
    if (typeof v === 'number' && (key === 'index' || key.endsWith('_index'))) scope += `{${key}=${v}}`
  }
  for (const [key, v] of Object.entries(record)) collect(v, `${scope}.${key}`, at && [...at, key], groups)
}

function setAt(root: unknown, at: Step[], text: string): void {
  let node = root as Record<Step, unknown>
  for (const step of at.slice(0, -1)) node = node[step] as Record<Step, unknown>
  node[at[at.length - 1]!] = text
}
