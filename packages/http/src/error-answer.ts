import type { ModelCodec } from './codecs/codec.js'

/**
 * How agent-tape answers a model call it will not serve (a replay miss, a call to a host that is
 * not a model endpoint): HTTP 400 in the provider's own error shape, whose message is the report,
 * with `x-should-retry: false`. Every SDK surfaces it at once instead of retrying, as it would a
 * network error (decision 0003); the tape fails with the report even when the agent catches it.
 */
export function errorAnswer(
  codec: ModelCodec,
  message: string,
  reason: 'replay-miss' | 'undeclared-model' | 'no-key' | 'two-interceptions' | 'budget',
): Response {
  return Response.json(codec.errorBody(message), {
    status: 400,
    headers: { ...codec.errorHeaders, 'x-should-retry': 'false', 'x-agent-tape': reason },
  })
}
