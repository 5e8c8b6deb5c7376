import { AgentTapeError, redactUrl, type Tape } from '@agent-tape/core/internal'
import type { ModelCodec } from './codecs/codec.js'
import { findCodec } from './codecs/index.js'

/**
 * The codec a request looks like when it was not sent to a model endpoint: a POST to a path one
 * of the codecs owns, which names the model (Gemini, Bedrock) or comes with a JSON body naming a
 * `model` (the generic paths: `…/chat/completions`, `…/messages`, `…/api/chat`). A local model
 * nobody declared in `modelEndpoints` would otherwise pass through (loopback) or be taped as plain
 * HTTP. Reads a copy of the body, and only for paths a codec owns.
 */
export async function modelLookalike(request: Request, url: URL): Promise<ModelCodec | undefined> {
  const codec = findCodec(request.method, url.pathname)
  if (!codec) return undefined
  if (codec.modelInPath) return codec
  try {
    const body = JSON.parse(await request.clone().text()) as { model?: unknown }
    return typeof body?.model === 'string' ? codec : undefined
  } catch {
    return undefined
  }
}

/**
 * The base URL to add to `modelEndpoints` for a request to `url`: what comes before the codec's
 * API path, or the base the codec gives (an Azure resource, not one of its deployments).
 */
export function endpointOf(url: URL, codec: ModelCodec): string {
  return redactUrl(
    `${url.origin}${codec.basePath?.(url.pathname) ?? url.pathname.replace(codec.apiPath, '')}`,
  )
}

/**
 * Why a model call to a host that is not a model endpoint was refused, recording or replaying:
 * a loopback call would pass through untaped (the recording lacks it, and its replay would send
 * it to the server), any other would be taped as plain HTTP (no step, no token counts, a miss not
 * in the provider's error shape). Refusing it in both makes the recording fail where the fix is
 * made, rather than a CI replay later.
 */
export function undeclaredModelError(
  url: URL,
  codec: ModelCodec,
  tape: Pick<Tape, 'id' | 'action' | 'rerecordCommand' | 'runsIn'>,
  loopback: boolean,
): AgentTapeError {
  const base = endpointOf(url, codec)
  const what = `Refused a model call to ${redactUrl(`${url.origin}${url.pathname}`)} (${codec.name}): ${url.host} is not a model endpoint`
  if (tape.runsIn === 'server') {
    // Capture fails open: the call went out, and only the recording of its run is given up.
    return new AgentTapeError('ERR_TAPE_CONFIG', {
      what: `Did not record a model call to ${redactUrl(`${url.origin}${url.pathname}`)} (${codec.name}): ${url.host} is not a model endpoint`,
      why: `${loopback ? 'loopback traffic that is not a model endpoint is not recorded' : 'it would be recorded as plain HTTP, which a replay cannot answer as the model'}, so the run "${tape.id}" could not be kept whole. The request was sent as the app made it`,
      fix: `Add its base URL to the modelEndpoints of createCapture (modelEndpoints: ['${base}']) and restart the server`,
    })
  }
  const replaying = tape.action === 'replay'
  const untaped = loopback
    ? replaying
      ? 'loopback traffic that is not a model endpoint passes through untaped, so the replay would send it to that server'
      : 'loopback traffic that is not a model endpoint passes through untaped, so the cassette would lack it and its replay would send it to that server'
    : 'it would be taped as plain HTTP: it would not advance the step, carry no token counts, and a replay miss would not be answered in the provider’s error shape'
  const why = `${tape.runsIn === 'command' ? 'the command' : `tape "${tape.id}"`} is ${replaying ? 'replaying' : 'recording'}, and ${untaped}. The request was not sent`
  if (tape.runsIn === 'command') {
    return new AgentTapeError('ERR_TAPE_CONFIG', {
      what,
      why,
      fix: `Pass --model-endpoint ${base} to agent-tape ${replaying ? 'replay' : 'record'}${replaying ? `, or record the command again with it: ${tape.rerecordCommand}` : ' and record the command again'}`,
    })
  }
  const rerun = replaying ? `re-record the test: ${tape.rerecordCommand}` : 'run the test again'
  const allow = loopback
    ? `, or, if the test must reach that server for real in every mode, add ${url.host} to allowHosts`
    : ''
  return new AgentTapeError('ERR_TAPE_CONFIG', {
    what,
    why,
    fix: `Add its base URL to the modelEndpoints option (modelEndpoints: ['${base}']) and ${rerun}${allow}`,
  })
}
