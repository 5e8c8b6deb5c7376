import type { OpenAIRealtimeWS } from 'openai/realtime/ws'

export type RealtimeEvent = { type: string; [field: string]: unknown }

/** What the agent saw of a Realtime session: every server event's type, the text, the errors, how it closed. */
export interface RealtimeSeen {
  types: string[]
  text: string
  calls: string[]
  errors: string[]
  audioBytes: number
  binary: string[]
  close?: { code: number; reason: string }
}

/** Waits for the next server event of `type` after the last one it returned (`closed` once the socket closes). */
export type NextEvent = (type: string) => Promise<RealtimeEvent>

/**
 * The server's events of a session as they come, and a wait for the next event of a type. Events
 * arrive in bursts: each wait reads on from the last event it returned; `closed` once `closed`
 * settles with none.
 */
export function eventLine(closed: Promise<void>): { push(event: RealtimeEvent): void; next: NextEvent } {
  const events: RealtimeEvent[] = []
  let read = 0
  const waiting: { type: string; resolve: (e: RealtimeEvent) => void }[] = []
  return {
    push(event) {
      events.push(event)
      const i = waiting.findIndex((w) => w.type === event.type)
      if (i >= 0) {
        read = events.length
        waiting.splice(i, 1)[0]!.resolve(event)
      }
    },
    next(type) {
      const at = events.findIndex((e, i) => i >= read && e.type === type)
      if (at >= 0) {
        read = at + 1
        return Promise.resolve(events[at]!)
      }
      return Promise.race([
        new Promise<RealtimeEvent>((resolve) => waiting.push({ type, resolve })),
        closed.then(() => ({ type: 'closed' })),
      ])
    },
  }
}

/**
 * A Realtime session of the SDK's `OpenAIRealtimeWS` made by `open` (Azure's is made by a
 * promise): waits for it to open, runs
 * `script` with it, and returns what the agent saw once the socket has closed.
 */
export function realtimeSession(
  open: () => OpenAIRealtimeWS | Promise<OpenAIRealtimeWS>,
  script: (rt: OpenAIRealtimeWS, next: NextEvent) => Promise<void>,
) {
  return async (): Promise<RealtimeSeen> => {
    const rt = await open()
    const seen: RealtimeSeen = { types: [], text: '', calls: [], errors: [], audioBytes: 0, binary: [] }
    const closed = new Promise<void>((resolve) =>
      rt.socket.on('close', (code, reason) => {
        seen.close = { code, reason: reason.toString() }
        resolve()
      }),
    )
    const line = eventLine(closed)
    rt.on('event', (event) => {
      const e = event as unknown as RealtimeEvent
      seen.types.push(e.type)
      if (e.type === 'response.output_text.delta') seen.text += String(e.delta)
      if (e.type === 'response.output_audio.delta')
        seen.audioBytes += Buffer.from(String(e.delta), 'base64').length
      if (e.type === 'response.function_call_arguments.done') seen.calls.push(`${e.name}(${e.arguments})`)
      line.push(e)
    })
    rt.on('error', (error) => seen.errors.push(error.message))
    rt.socket.on('message', (data, isBinary) => {
      if (isBinary) seen.binary.push(Buffer.from(data as Buffer).toString('hex'))
    })
    const next = line.next
    await new Promise<void>((resolve, reject) => {
      rt.socket.once('open', () => resolve())
      rt.socket.once('error', reject)
    })
    await script(rt, next)
    await closed
    return seen
  }
}

/** The weather tool as a Realtime session declares it (a Responses request too, with `strict`). */
export const REALTIME_WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

/**
 * The weather conversation of a Realtime session: `instructions` and the weather tool set up, a
 * question whose answer is a call of `get_weather`, its output from `lookup`, and the answer the
 * model makes of it; then the client closes. A session closed early ends it where it closed.
 */
export function realtimeWeather(instructions: string, lookup: (city: string) => Promise<unknown>) {
  return async (rt: OpenAIRealtimeWS, next: NextEvent): Promise<void> => {
    rt.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        instructions,
        output_modalities: ['text'],
        tools: [REALTIME_WEATHER_TOOL],
      },
    } as never)
    await next('session.updated')
    rt.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
    })
    rt.send({ type: 'response.create' })
    const call = await next('response.function_call_arguments.done')
    if (call.type === 'closed') return
    await next('response.done')
    const { city } = JSON.parse(String(call.arguments)) as { city: string }
    rt.send({
      type: 'conversation.item.create',
      item: {
        type: 'function_call_output',
        call_id: String(call.call_id),
        output: JSON.stringify(await lookup(city)),
      },
    })
    rt.send({ type: 'response.create' })
    await next('response.done')
    rt.close()
  }
}
