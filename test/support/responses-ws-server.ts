import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'

type Event = Record<string, unknown> & { type?: string }

export interface ResponsesWsServer {
  /** `http://127.0.0.1:<port>/v1`: the base URL an SDK client is given (it opens `ws:` from it). */
  baseURL: string
  /** TCP connections accepted so far: 0 more proves a replay reached nothing. */
  readonly connections: number
  /** The URL and headers of each session's handshake, in order. */
  readonly handshakes: { url: string; headers: Record<string, string | string[] | undefined> }[]
  close(): Promise<void>
}

/** The tokens each response reports: 120 in, 30 out. */
export const RESPONSE_USAGE = {
  input_tokens: 120,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 30,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 150,
}

const NO_USAGE = { ...RESPONSE_USAGE, input_tokens: 0, output_tokens: 0, total_tokens: 0 }

/**
 * A loopback server of the Responses API's WebSocket mode (`/v1/responses`), as its documented
 * events go: each `response.create` (the body of `POST /v1/responses`, less `stream`) is answered
 * with the events of a response's stream, `response.created` to `response.completed` (with no
 * output for `generate: false`). A `previous_response_id` continues a response of the same connection. A conversation with a
 * question and the `get_weather` tool is answered with a function call; one with the call's
 * output, with text that quotes the output's `temp`. A user message `break` gets an `error`
 * event and a close with 1011; one of `cut` drops the connection after the first text delta.
 */
export async function startResponsesWsServer(): Promise<ResponsesWsServer> {
  let connections = 0
  const handshakes: ResponsesWsServer['handshakes'] = []
  const server = createServer((_, res) => res.writeHead(426).end())
  server.on('connection', () => {
    connections += 1
  })
  const wss = new WebSocketServer({ server, path: '/v1/responses' })
  wss.on('connection', (ws, req) => {
    handshakes.push({ url: req.url ?? '', headers: req.headers })
    serveConnection(ws)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get connections() {
      return connections
    },
    handshakes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function serveConnection(ws: WebSocket): void {
  let sequence = 0
  const send = (event: Event) => ws.send(JSON.stringify({ ...event, sequence_number: sequence++ }))
  /** Each response of this connection: the items it saw and wrote (a continuation's context). */
  const responses = new Map<string, Event[]>()
  ws.on('message', (data: Buffer) => {
    const event = JSON.parse(data.toString()) as Event
    if (event.type !== 'response.create') {
      send({
        type: 'error',
        status: 400,
        error: {
          type: 'invalid_request_error',
          code: null,
          message: `Unknown event ${event.type}`,
          param: null,
        },
      })
      return
    }
    const previous = typeof event.previous_response_id === 'string' ? event.previous_response_id : undefined
    if (previous !== undefined && !responses.has(previous)) {
      send({
        type: 'error',
        status: 400,
        error: {
          type: 'invalid_request_error',
          code: 'previous_response_not_found',
          message: `Previous response with id '${previous}' not found.`,
          param: 'previous_response_id',
        },
      })
      return
    }
    const input =
      typeof event.input === 'string'
        ? [{ role: 'user', content: event.input }]
        : ((event.input as Event[] | undefined) ?? [])
    const items = [...(previous ? responses.get(previous)! : []), ...input]
    const question = textOf(items.findLast((item) => item.role === 'user'))
    if (question === 'break') {
      send({
        type: 'error',
        status: 500,
        error: { type: 'server_error', code: null, message: 'The server had an error.', param: null },
      })
      ws.close(1011, 'internal error')
      return
    }
    const id = `resp_${String(responses.size + 1).padStart(12, '0')}`
    const response = {
      id,
      object: 'response',
      model: event.model,
      status: 'in_progress',
      output: [] as Event[],
    }
    send({ type: 'response.created', response })
    send({ type: 'response.in_progress', response })
    if (question === 'cut') {
      send({ type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: 'In Paris ' })
      // Once the frames are written: what a dropped connection delivered before it dropped.
      ws.ping(undefined, undefined, () => ws.terminate())
      return
    }
    if (event.generate === false) {
      // The conversation's state prepared, with no output: a later response continues it.
      send({ type: 'response.completed', response: { ...response, status: 'completed', usage: NO_USAGE } })
      responses.set(id, items)
      return
    }
    const output = items.findLast((item) => item.type === 'function_call_output')
    const asksWeather = ((event.tools as Event[] | undefined) ?? []).some(
      (tool) => tool.name === 'get_weather',
    )
    const item = !output && asksWeather ? functionCall(send) : message(send, output)
    const done = { ...response, status: 'completed', output: [item], usage: RESPONSE_USAGE }
    send({ type: 'response.completed', response: done })
    responses.set(id, [...items, item])
  })
}

/** The model calls `get_weather` for Paris, its arguments streamed. */
function functionCall(send: (event: Event) => void): Event {
  const call = {
    type: 'function_call',
    id: 'fc_000000000001',
    call_id: 'call_000000000001',
    name: 'get_weather',
  }
  const args = '{"city":"Paris"}'
  send({
    type: 'response.output_item.added',
    output_index: 0,
    item: { ...call, arguments: '', status: 'in_progress' },
  })
  send({ type: 'response.function_call_arguments.delta', output_index: 0, item_id: call.id, delta: args })
  send({ type: 'response.function_call_arguments.done', output_index: 0, item_id: call.id, arguments: args })
  const item = { ...call, arguments: args, status: 'completed' }
  send({ type: 'response.output_item.done', output_index: 0, item })
  return item
}

/** The model's answer: the weather the tool's output gave, or what it heard. */
function message(send: (event: Event) => void, output: Event | undefined): Event {
  const deltas = output
    ? ['In Paris ', 'it is ', `${(JSON.parse(String(output.output)) as { temp: number }).temp} degrees.`]
    : ['Hello.']
  const id = 'msg_000000000001'
  send({
    type: 'response.output_item.added',
    output_index: 0,
    item: { type: 'message', id, role: 'assistant', status: 'in_progress', content: [] },
  })
  for (const delta of deltas)
    send({ type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: id, delta })
  const text = deltas.join('')
  send({ type: 'response.output_text.done', output_index: 0, content_index: 0, item_id: id, text })
  const item = {
    type: 'message',
    id,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  }
  send({ type: 'response.output_item.done', output_index: 0, item })
  return item
}

function textOf(item: Event | undefined): string | undefined {
  if (!item) return undefined
  if (typeof item.content === 'string') return item.content
  const content = item.content as { text?: string }[] | undefined
  return content?.[0]?.text
}
