import type { IdFactory } from './ids.js'
import type { HttpErrorFault } from './turn.js'

const ERROR_DEFAULTS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  404: { type: 'invalid_request_error', code: 'unknown_url', message: 'Unknown request URL.' },
  429: {
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests. Please try again in 1s.',
  },
  500: {
    type: 'server_error',
    code: null,
    message: 'The server had an error while processing your request. Sorry about that!',
  },
  503: {
    type: 'server_error',
    code: null,
    message: 'The engine is currently overloaded, please try again later.',
  },
}

/** OpenAI's error body: `{"error":{"message","type","param","code"}}`. */
export function openaiErrorBody(fault: HttpErrorFault): unknown {
  const base = ERROR_DEFAULTS[fault.status] ?? ERROR_DEFAULTS[fault.status >= 500 ? 500 : 400]!
  return {
    error: {
      message: fault.message ?? base.message,
      type: fault.type ?? base.type,
      param: null,
      code: fault.code === undefined ? base.code : fault.code,
    },
  }
}

/** Headers OpenAI sends on every API response; `x-request-id` is what the SDK exposes as `_request_id`. */
export function openaiResponseHeaders(ids: IdFactory): Record<string, string> {
  return {
    'x-request-id': `req_${ids.hex(32)}`,
    'openai-organization': 'user-fakeprovider',
    'openai-processing-ms': '42',
    'openai-version': '2020-10-01',
    'x-ratelimit-limit-requests': '10000',
    'x-ratelimit-remaining-requests': '9999',
  }
}

/** Random padding OpenAI adds to stream deltas unless `stream_options.include_obfuscation` is false. */
export function obfuscation(
  body: Readonly<Record<string, unknown>>,
  ids: IdFactory,
): { obfuscation?: string } {
  const options = body.stream_options as { include_obfuscation?: boolean } | undefined
  return options?.include_obfuscation === false ? {} : { obfuscation: ids.base62(10) }
}
