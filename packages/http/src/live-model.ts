import { AgentTapeError } from '@agent-tape/core/internal'
import type { ModelCodec } from './codecs/codec.js'
import { readRequestBytes } from './request-body.js'

/**
 * A model request as sent to another model than the one the caller asked for (`agent-tape replay
 * --from <n> --model <name>`): its codec says where the model is, in the path (an API whose path
 * names it) or in the body's `model` (every other API). Only the request that leaves changes; its
 * decision keeps the input the caller made, so that the recording replays the same command. Throws
 * an `AgentTapeError` for a request whose model cannot be told (a body that names none).
 */
export async function withLiveModel(request: Request, codec: ModelCodec, model: string): Promise<Request> {
  const url = new URL(request.url)
  const bytes = await readRequestBytes(request)
  const path = codec.pathWithModel?.(url.pathname, model) ?? url.pathname
  let body: Buffer | string | undefined = bytes
  if (path !== url.pathname) url.pathname = path
  else {
    const json = bytes === undefined ? undefined : parseObject(bytes)
    if (!json || typeof json.model !== 'string') {
      throw new AgentTapeError('ERR_TAPE_USAGE', {
        what: `Cannot send a ${codec.name} request to model ${JSON.stringify(model)}`,
        why: `the request to ${url.host}${url.pathname} names no model ${codec.modelInPath ? 'in its path' : 'in its body ("model")'}, so there is none to replace`,
        fix: 'Leave --model out for this command, or make the request name its model',
      })
    }
    body = JSON.stringify({ ...json, model })
  }
  const headers = new Headers(request.headers)
  // The length changes with the model's name; fetch sets it again from the body.
  headers.delete('content-length')
  return new Request(url, { method: request.method, headers, body: body ?? null, signal: request.signal })
}

function parseObject(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}
