import { isVolatileField, PROVIDER_ID } from '@agent-tape/http/internal'

/**
 * Values that change on every recording of the same run and say nothing about behaviour:
 * creation times, request ids, timings, and what each provider's codec names (its generated
 * ids, its own timing headers). `agent-tape diff` masks them so a re-record that changed
 * nothing shows no difference.
 */
const VOLATILE_FIELDS = new Set([
  'created',
  'created_at',
  'recordedAt',
  'x-request-id',
  'request-id',
  'headersAt',
])

const ID_PLACEHOLDER = '<id>'

/** A copy of a JSON value with volatile fields removed and provider ids replaced by `<id>`. */
export function maskVolatile(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(PROVIDER_ID, ID_PLACEHOLDER)
  if (Array.isArray(value)) return value.map(maskVolatile)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    if (!VOLATILE_FIELDS.has(key) && !key.startsWith('x-ratelimit-') && !isVolatileField(key))
      out[key] = maskVolatile(child)
  }
  return out
}
