import type { KeyVariable } from './codec.js'

/**
 * Model providers whose API no codec reads yet. Requests to their hosts are still model
 * requests (taped, never sent in replay), keyed as generic HTTP: by method, path, query and
 * body. Their key variables get a placeholder in replay, as every provider's do.
 */
export const UNREAD_PROVIDERS: readonly { hosts: readonly string[]; keyVariables: readonly KeyVariable[] }[] =
  [{ hosts: ['api.cohere.com'], keyVariables: ['COHERE_API_KEY'] }]
