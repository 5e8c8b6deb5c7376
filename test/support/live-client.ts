import type { GoogleGenAI, LiveServerMessage, Session } from '@google/genai'

/** What the agent saw of a Live session: the messages' kinds, the text, the tool calls, the audio, how it closed. */
export interface LiveSeen {
  kinds: string[]
  text: string
  calls: string[]
  audioBytes: number
  closed?: number
  reason?: string
}

export type LiveConfig = Parameters<GoogleGenAI['live']['connect']>[0]['config']

/** Waits for the next message with `kind` (`turnComplete` for a turn's end) after the last one it returned. */
export type NextMessage = (kind: string) => Promise<LiveServerMessage>

/**
 * A Live session of `ai.live.connect` on the client `ai()` gives: connects, runs `script`, and
 * returns what the agent saw once the session has closed.
 */
export function liveSession(
  ai: () => GoogleGenAI,
  config: LiveConfig,
  script: (session: Session, next: NextMessage) => Promise<void>,
) {
  return async (): Promise<LiveSeen> => {
    const seen: LiveSeen = { kinds: [], text: '', calls: [], audioBytes: 0 }
    const messages: LiveServerMessage[] = []
    let read = 0
    let wake: (() => void) | undefined
    let onClose: () => void = () => {}
    const closed = new Promise<void>((resolve) => {
      onClose = resolve
    })
    const connecting = ai().live.connect({
      model: 'gemini-live-2.5-flash',
      config,
      callbacks: {
        onmessage: (message) => {
          const kind = Object.keys(message).filter(
            (k) => (message as unknown as Record<string, unknown>)[k] !== undefined,
          )
          seen.kinds.push(kind.join('+'))
          for (const part of message.serverContent?.modelTurn?.parts ?? []) {
            if (part.text) seen.text += part.text
            if (part.inlineData?.data) seen.audioBytes += Buffer.from(part.inlineData.data, 'base64').length
          }
          for (const call of message.toolCall?.functionCalls ?? [])
            seen.calls.push(`${call.name}(${JSON.stringify(call.args)})`)
          messages.push(message)
          wake?.()
        },
        onclose: (event) => {
          seen.closed = event.code
          if (event.reason) seen.reason = event.reason
          onClose()
          wake?.()
        },
      },
    })
    // The SDK waits for `setupComplete`, which a session closed at its setup never sends.
    const session = await Promise.race([connecting, closed.then(() => undefined)])
    if (!session) return seen
    const next = async (kind: string): Promise<LiveServerMessage> => {
      for (;;) {
        const at = messages.findIndex(
          (m, i) =>
            i >= read &&
            (kind === 'turnComplete'
              ? m.serverContent?.turnComplete
              : (m as unknown as Record<string, unknown>)[kind]),
        )
        if (at >= 0) {
          read = at + 1
          return messages[at]!
        }
        if (seen.closed !== undefined) return {} as LiveServerMessage
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
    }
    await script(session, next)
    session.close()
    await closed
    return seen
  }
}

/** The weather tool as a Live session declares it. */
export const LIVE_WEATHER_TOOL = {
  functionDeclarations: [
    {
      name: 'get_weather',
      description: 'The weather in a city',
      parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
}
