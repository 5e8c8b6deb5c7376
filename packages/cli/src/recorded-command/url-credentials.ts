import { isSecretParamName, redactUrl } from '@agent-tape/core/internal'
import type { SecretSpan } from './argument-spans.js'

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s"'<>`]+/gi

/**
 * Where the credentials of the URLs in `text` are, by the judgement `redactUrl` makes for every
 * URL agent-tape prints: the password of the user info (the user name when it comes alone, as
 * often a token as a name), and the values of query parameters named like credentials. By
 * position, so that the rest of the URL (its host, its path) stays readable in the cassette.
 */
export function urlCredentialSpans(text: string): SecretSpan[] {
  if (!text.includes('://')) return []
  const spans: SecretSpan[] = []
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const url = m[0]
    if (redactUrl(url) === url) continue
    const found = [...userInfoSpans(url), ...querySpans(url)]
    // A URL the parser reads otherwise than these cuts (an odd escape): hidden whole.
    if (found.length === 0) found.push({ start: 0, end: url.length, what: 'a URL with credentials' })
    for (const span of found) spans.push({ ...span, start: span.start + m.index, end: span.end + m.index })
  }
  return spans
}

function userInfoSpans(url: string): SecretSpan[] {
  const from = url.indexOf('://') + 3
  const authorityEnd = url.slice(from).search(/[/?#]/)
  const authority = url.slice(from, authorityEnd === -1 ? undefined : from + authorityEnd)
  const at = authority.lastIndexOf('@')
  if (at === -1) return []
  const userInfo = authority.slice(0, at)
  const colon = userInfo.indexOf(':')
  if (colon !== -1 && colon < userInfo.length - 1)
    return [{ start: from + colon + 1, end: from + at, what: "a URL's password" }]
  const user = colon === -1 ? userInfo : userInfo.slice(0, colon)
  return user === '' ? [] : [{ start: from, end: from + user.length, what: "a URL's user name" }]
}

function querySpans(url: string): SecretSpan[] {
  const q = url.indexOf('?')
  if (q === -1) return []
  const hash = url.indexOf('#', q)
  const spans: SecretSpan[] = []
  let at = q + 1
  for (const pair of url.slice(q + 1, hash === -1 ? undefined : hash).split('&')) {
    const eq = pair.indexOf('=')
    if (eq > 0 && eq < pair.length - 1 && isSecretParamName(decodeName(pair.slice(0, eq)))) {
      spans.push({
        start: at + eq + 1,
        end: at + pair.length,
        what: `the ${decodeName(pair.slice(0, eq))} parameter of a URL`,
      })
    }
    at += pair.length + 1
  }
  return spans
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '))
  } catch {
    return name
  }
}
