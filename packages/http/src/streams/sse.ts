import type { SseEvent } from '../recorded-response.js'
import type { StreamFormat } from './format.js'
import { SseParser, serializeSseEvent } from './sse-parser.js'

/** Server-sent events (`text/event-stream`): OpenAI, Anthropic, Gemini, MCP over HTTP. */
export const SSE_FORMAT: StreamFormat<SseEvent> = {
  key: 'sse',
  matches: (contentType) => /text\/event-stream/i.test(contentType),
  text: true,
  parser(clock) {
    const parser = new SseParser(clock)
    const decoder = new TextDecoder()
    return {
      push: (chunk) => parser.push(decoder.decode(chunk, { stream: true })),
      end: () => [...parser.push(decoder.decode()), ...parser.end()],
    }
  },
  serialize: (event) => encoder.encode(serializeSseEvent(event)),
  event: (event) => ({
    ...(event.event === undefined ? {} : { event: event.event }),
    // Lines outside any event are read as the data of one (an error body written into the stream).
    data: event.json ?? parseJson(event.data ?? event.text),
  }),
}

const encoder = new TextEncoder()

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
