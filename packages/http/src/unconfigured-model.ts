import { AgentTapeError, formatMessage, redactUrl } from '@agent-tape/core/internal'
import type { ModelCodec } from './codecs/codec.js'
import { findCodec } from './codecs/index.js'

/** The API path each codec's requests end with: what is left of the URL is the base to configure. */
const API_SUFFIX = /\/(?:chat\/completions|responses|messages|api\/chat|api\/generate)$/

/**
 * The codec a request looks like when it was not sent to a model endpoint: a path one of the
 * codecs owns and a JSON body that names a `model`. A self-hosted or loopback model that is not
 * in `modelEndpoints` would otherwise pass through (loopback) or be taped as plain HTTP without
 * a word. Reads a copy of the body, and only for paths a codec owns.
 */
export async function modelLookalike(request: Request, url: URL): Promise<ModelCodec | undefined> {
  const codec = findCodec(request.method, url.pathname)
  if (!codec) return undefined
  try {
    const body = JSON.parse(await request.clone().text()) as { model?: unknown }
    return typeof body?.model === 'string' ? codec : undefined
  } catch {
    return undefined
  }
}

/** The base URL to add to `modelEndpoints` for a request to `url`. */
function endpointOf(url: URL, codec: ModelCodec): string {
  return `${url.origin}${codec.basePath?.(url.pathname) ?? url.pathname.replace(API_SUFFIX, '')}`
}

function where(url: URL): string {
  return redactUrl(`${url.origin}${url.pathname}`)
}

/** While recording: the call passed through untaped (loopback) or was taped as plain HTTP. */
export function unconfiguredWarning(url: URL, codec: ModelCodec, loopback: boolean): string {
  return formatMessage({
    what: `A request to ${where(url)} looks like a model call (${codec.name}), but ${url.host} is not a model endpoint`,
    why: loopback
      ? 'loopback traffic that is not a model endpoint passes through untaped, so the call is not in the cassette and the replay will need that server running'
      : 'it was taped as plain HTTP: it does not advance the step, carries no token counts, and a replay miss is not answered in the provider’s error shape',
    fix: `Add its base URL to the modelEndpoints option (modelEndpoints: ['${redactUrl(endpointOf(url, codec))}']) and re-record`,
  })
}

/** In replay: the untaped call to a loopback host that is not a model endpoint found no server. */
export function unconfiguredFailure(url: URL, codec: ModelCodec, cause: unknown): AgentTapeError {
  return new AgentTapeError(
    'ERR_TAPE_CONFIG',
    {
      what: `The model call to ${where(url)} (${codec.name}) failed in replay: ${url.host} is not a model endpoint, so it was never recorded`,
      why: `loopback traffic that is not a model endpoint passes through untaped, and nothing answered there (${(cause as Error)?.message ?? String(cause)})`,
      fix: `Add its base URL to the modelEndpoints option (modelEndpoints: ['${redactUrl(endpointOf(url, codec))}']) and re-record the test`,
    },
    { cause },
  )
}
