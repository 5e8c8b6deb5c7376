import type { NdjsonLine } from '../recorded-response.js'
import type { StreamFormat } from './format.js'

/**
 * Newline-delimited JSON (`application/x-ndjson`): one JSON value per line, as Ollama streams.
 * A line is stored as JSON when it round-trips byte for byte, as text otherwise (a `\r\n` ending,
 * spacing); a last line that had no newline says so.
 */
export const NDJSON_FORMAT: StreamFormat<NdjsonLine> = {
  key: 'ndjson',
  matches: (contentType) => /application\/(x-)?ndjson|application\/jsonl/i.test(contentType),
  text: true,
  parser(clock) {
    const decoder = new TextDecoder()
    let buffer = ''
    const lines = (final: boolean): NdjsonLine[] => {
      const out: NdjsonLine[] = []
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        out.push(toLine(buffer.slice(0, nl), clock()))
        buffer = buffer.slice(nl + 1)
      }
      if (final && buffer !== '') {
        out.push({ ...toLine(buffer, clock()), open: true })
        buffer = ''
      }
      return out
    }
    return {
      push(chunk) {
        buffer += decoder.decode(chunk, { stream: true })
        return lines(false)
      },
      end() {
        buffer += decoder.decode()
        return lines(true)
      },
    }
  },
  serialize: (line) =>
    encoder.encode(`${'json' in line ? JSON.stringify(line.json) : line.text}${line.open ? '' : '\n'}`),
  // A line kept as text may still be JSON a codec reads: Go's encoder (Ollama's) writes <, > and &
  // as \u003c, \u003e and \u0026, which JSON.stringify does not give back.
  event: (line) => ({ data: 'json' in line ? line.json : parseJson(line.text) }),
}

const encoder = new TextEncoder()

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function toLine(text: string, t: number): NdjsonLine {
  try {
    const json: unknown = JSON.parse(text)
    if (JSON.stringify(json) === text) return { t, json }
  } catch {
    // not JSON: kept as the text it was
  }
  return { t, text }
}
