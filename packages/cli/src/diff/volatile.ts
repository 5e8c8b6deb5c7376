/**
 * Values that change on every recording of the same run and say nothing about behaviour:
 * provider-generated ids, creation times, request ids, stream obfuscation padding, timings.
 * `agent-tape diff` masks them so a re-record that changed nothing shows no difference.
 */
const VOLATILE_FIELDS = new Set([
  'created',
  'created_at',
  'obfuscation',
  'system_fingerprint',
  'recordedAt',
  'x-request-id',
  'request-id',
  'openai-processing-ms',
  'headersAt',
])

/** Provider ids: chat completions, messages, tool calls, responses, output items, requests. */
const PROVIDER_ID =
  /\b(?:chatcmpl-|msg_|call_|toolu_|srvtoolu_|resp_|req_|fc_|rs_|ws_|ctc_)[A-Za-z0-9]{8,}\b/g

const ID_PLACEHOLDER = '<id>'

/** A copy of a JSON value with volatile fields removed and provider ids replaced by `<id>`. */
export function maskVolatile(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(PROVIDER_ID, ID_PLACEHOLDER)
  if (Array.isArray(value)) return value.map(maskVolatile)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    if (
      !VOLATILE_FIELDS.has(key) &&
      !key.startsWith('x-ratelimit-') &&
      !key.startsWith('anthropic-ratelimit-')
    )
      out[key] = maskVolatile(child)
  }
  return out
}
