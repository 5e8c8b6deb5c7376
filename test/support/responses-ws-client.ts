import type { ResponsesWS } from 'openai/resources/responses/ws'
import { eventLine, type NextEvent, REALTIME_WEATHER_TOOL, type RealtimeEvent } from './realtime-client.js'

/** What the agent saw of a session of the Responses API's WebSocket mode. */
export interface ResponsesWsSeen {
  types: string[]
  text: string
  calls: string[]
  /** The errors the SDK raised. */
  errors: string[]
  close?: { code: number; reason: string }
}

/**
 * A session of the SDK's `ResponsesWS` made by `open`: waits for it to open, runs `script` with
 * it, and returns what the agent saw once the session has closed.
 */
export function responsesWsSession(
  open: () => ResponsesWS,
  script: (rws: ResponsesWS, next: NextEvent) => Promise<void>,
) {
  return async (): Promise<ResponsesWsSeen> => {
    const rws = open()
    const seen: ResponsesWsSeen = { types: [], text: '', calls: [], errors: [] }
    const closed = new Promise<void>((resolve) =>
      rws.on('close', (code, reason) => {
        seen.close = { code, reason }
        resolve()
      }),
    )
    const line = eventLine(closed)
    rws.on('event', (event) => {
      const e = event as unknown as RealtimeEvent
      seen.types.push(e.type)
      if (e.type === 'response.output_text.delta') seen.text += String(e.delta)
      const item = e.item as { type?: string; name?: string; arguments?: string } | undefined
      if (e.type === 'response.output_item.done' && item?.type === 'function_call')
        seen.calls.push(`${item.name}(${item.arguments})`)
      line.push(e)
    })
    rws.on('error', (error) => seen.errors.push(error.message))
    await new Promise<void>((resolve, reject) => {
      rws.socket.once('open', () => resolve())
      rws.socket.once('error', reject)
    })
    await script(rws, line.next)
    await closed
    return seen
  }
}

/** The weather tool as a `response.create` declares it. */
const RESPONSES_WEATHER_TOOL = { ...REALTIME_WEATHER_TOOL, strict: false }

/**
 * The weather conversation over the Responses API's WebSocket mode: a `response.create` with
 * `instructions`, the question and the weather tool, answered with a call of `get_weather`; its
 * output from `lookup` in a second `response.create` that continues the first
 * (`previous_response_id`), answered with text; then the client closes. A session closed early
 * ends it where it closed.
 */
export function responsesWeather(instructions: string, lookup: (city: string) => Promise<unknown>) {
  return async (rws: ResponsesWS, next: NextEvent): Promise<void> => {
    rws.send({
      type: 'response.create',
      model: 'gpt-4.1-mini',
      instructions,
      input: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [RESPONSES_WEATHER_TOOL],
      store: false,
    })
    const call = await next('response.output_item.done')
    if (call.type === 'closed') return
    const completed = await next('response.completed')
    if (completed.type === 'closed') return
    const item = call.item as { call_id: string; arguments: string }
    const { city } = JSON.parse(item.arguments) as { city: string }
    rws.send({
      type: 'response.create',
      model: 'gpt-4.1-mini',
      previous_response_id: (completed.response as { id: string }).id,
      input: [
        { type: 'function_call_output', call_id: item.call_id, output: JSON.stringify(await lookup(city)) },
      ],
      tools: [RESPONSES_WEATHER_TOOL],
      store: false,
    })
    if ((await next('response.completed')).type !== 'closed') rws.close()
  }
}
