/** The name of an endpoint the fake provider speaks: `openai-chat`, `anthropic-messages`, … */
export type EndpointName = string

/** A request as the fake provider received it. */
export interface ReceivedRequest {
  /** 0-based order of arrival across all endpoints. */
  index: number
  method: string
  /** URL path without the query string, e.g. `/v1/chat/completions`. */
  path: string
  /** Query string including `?`, or `''`. */
  search: string
  /** Lower-cased header names; repeated headers are joined with `, `. */
  headers: Readonly<Record<string, string>>
  /** The parsed JSON body; `{}` when the body is empty or not a JSON object. */
  body: Readonly<Record<string, unknown>>
  /** The body exactly as received (UTF-8). */
  rawBody: string
  /** Which endpoint the path maps to, or `undefined` for an unknown path. */
  endpoint: EndpointName | undefined
}
