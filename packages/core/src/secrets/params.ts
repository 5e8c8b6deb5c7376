import { CURSOR_WORDS, SECRET_WORDS, wordsOf } from './names.js'

/**
 * Parameter names (query, form, header, cookie) that carry credentials, judged by the words of
 * the name (the table in `names.ts`): `client_secret`, `X-Amz-Signature`, `refresh_token`,
 * `apiKey`, `sig`. Pagination tokens (`page_token`, `nextToken`) are cursors, not credentials.
 * A parameter is read more eagerly than a JSON member (any credential word counts, whatever its
 * value), because such a parameter also takes no part in a request's key.
 */
export function isSecretParamName(name: string): boolean {
  const words = wordsOf(name)
  if (words.some((w) => CURSOR_WORDS.has(w))) return false
  return words.some((w) => SECRET_WORDS.has(w))
}

/** What a credential parameter's value becomes: a plain word, the same percent-encoded or not. */
export const REDACTED_VALUE = 'REDACTED'

/**
 * A URL with its credentials (userinfo) and the values of secret-named query parameters
 * replaced, for printing. A URL with none of them comes back exactly as given.
 */
export function redactUrl(url: string | URL): string {
  const text = String(url)
  let parsed: URL
  try {
    parsed = new URL(text)
  } catch {
    return text
  }
  let changed = false
  if (parsed.username || parsed.password) {
    // A user name alone (`https://<token>@host`) is as often a token as a name.
    if (parsed.password) parsed.password = REDACTED_VALUE
    else parsed.username = REDACTED_VALUE
    changed = true
  }
  for (const name of new Set(parsed.searchParams.keys())) {
    if (!isSecretParamName(name)) continue
    parsed.searchParams.set(name, REDACTED_VALUE)
    changed = true
  }
  return changed ? parsed.href : text
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s"'<>`]+/gi

/** Text with every URL in it passed through {@link redactUrl}. */
export function redactUrlsIn(text: string): string {
  return text.includes('://') ? text.replace(URL_IN_TEXT, (url) => redactUrl(url)) : text
}

/**
 * An `application/x-www-form-urlencoded` body as decoded name/value pairs, with the values of
 * secret-named fields replaced. Decoded, so that the secret scan sees what the fields hold.
 */
export function readForm(body: string): [string, string][] {
  return [...new URLSearchParams(body)].map(([name, value]) => [
    name,
    isSecretParamName(name) ? REDACTED_VALUE : value,
  ])
}
