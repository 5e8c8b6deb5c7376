import { asRecord, type Json } from '../codecs/read.js'
import { base64Digest, type SessionCodec } from '../codecs/session-codec.js'

/**
 * A frame the server sent, as a cassette keeps it: `at`, milliseconds after the client's message
 * that it follows (or the opening); a text frame as sent, a binary one in base64 (decision
 * 0038), and the close the server ended the session with.
 */
export type RecordedFrame =
  | { at: number; text: string }
  | { at: number; binary: string }
  | { at: number; close: { code: number; reason: string } }

/**
 * What a client message's decision records: the server's frames until the client's next
 * message, and the model the session runs by then, when it was named (its tokens' price).
 */
export interface FramesOutput {
  frames: RecordedFrame[]
  model?: string
}

/** What the opening records: the server's answer to the upgrade, and its first frames. */
export type OpenOutput =
  | { status: 101; protocol?: string; frames: RecordedFrame[]; model?: string }
  | { status: number; headers: Record<string, string>; body: string }

/** A frame's payload as a received message: a text frame's string, or a binary frame's bytes. */
export function frameOf(data: Buffer, isBinary: boolean, at: number): RecordedFrame {
  return isBinary ? { at, binary: data.toString('base64') } : { at, text: data.toString('utf8') }
}

/**
 * A client message as its decision's input: a JSON message by its type and canonical fields
 * (the codec's), other text whole, binary by its digest.
 */
export function clientInput(codec: SessionCodec, data: Buffer, isBinary: boolean): Json {
  if (isBinary) return { api: codec.name, frame: 'binary', data: base64Digest(data.toString('base64')) }
  const text = data.toString('utf8')
  const parsed = parseObject(text)
  if (!parsed) return { api: codec.name, frame: 'text', text }
  const { type, message } = codec.canonicalMessage(parsed)
  return { api: codec.name, frame: type, message }
}

/** How a client message's decision is begun: a message that asks the model for an answer starts a step. */
export function messageOptions(codec: SessionCodec, input: Json): { asksModel: boolean } {
  return { asksModel: codec.asksModel(asRecord(input.message)) }
}

/**
 * The JSON messages among a decision's recorded frames, for reading: text frames, and binary
 * frames that hold JSON (a server may send its JSON messages as binary frames, as Gemini's does).
 */
export function recordedMessages(out: unknown): Json[] {
  const frames = asRecord(out).frames
  if (!Array.isArray(frames)) return []
  const messages: Json[] = []
  for (const frame of frames) {
    const { text, binary } = asRecord(frame)
    const json =
      typeof text === 'string'
        ? text
        : typeof binary === 'string' && binary.startsWith('e') // base64 of a first byte `{`
          ? Buffer.from(binary, 'base64').toString('utf8')
          : undefined
    const parsed = json === undefined ? undefined : parseObject(json)
    if (parsed) messages.push(parsed)
  }
  return messages
}

/** The frames a decision recorded (none for an output of another shape). */
export function framesOf(out: unknown): RecordedFrame[] {
  const frames = asRecord(out).frames
  return Array.isArray(frames) ? (frames as RecordedFrame[]) : []
}

/** A JSON object's text parsed, or `undefined` for any other text. */
export function parseObject(text: string): Json | undefined {
  if (!text.startsWith('{')) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined
  } catch {
    return undefined
  }
}
