import {
  credentialName,
  isCodeReference,
  isCredentialValue,
  isPlaceholder,
  isSecretParamName,
  isStandIn,
  redactUrl,
} from '@agent-tape/core/internal'
import type { SecretSpan } from './argument-spans.js'

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s"'<>`]+/gi

/**
 * Where the credentials of the URLs in `text` are: the password of the user info (unless it is a
 * stand-in, `user:password@`, or a reference, `${PIP_PASSWORD}`), a user name that comes alone
 * when it is machine-made (a token used as the user; a Sentry DSN's public key is no secret),
 * and the values of query parameters named like credentials that could be one (`key=INV-412` is
 * an id). Judged by value, as a command line's other arguments are; by position, so that the rest
 * of the URL (its host, its path) stays readable in the cassette.
 */
export function urlCredentialSpans(text: string): SecretSpan[] {
  if (!text.includes('://')) return []
  const spans: SecretSpan[] = []
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const url = m[0]
    if (redactUrl(url) === url) continue
    const candidates = [...userInfoSpans(url), ...querySpans(url)]
    // A URL the parser reads otherwise than these cuts (an odd escape): hidden whole.
    if (candidates.length === 0)
      candidates.push({ start: 0, end: url.length, what: 'a URL with credentials' })
    for (const span of candidates)
      if (span !== KEPT) spans.push({ ...span, start: span.start + m.index, end: span.end + m.index })
  }
  return spans
}

/** A place `redactUrl` hides that holds no credential by its value: kept as typed. */
const KEPT: SecretSpan = { start: 0, end: 0, what: 'kept' }

function userInfoSpans(url: string): SecretSpan[] {
  const from = url.indexOf('://') + 3
  const authorityEnd = url.slice(from).search(/[/?#]/)
  const authority = url.slice(from, authorityEnd === -1 ? undefined : from + authorityEnd)
  const at = authority.lastIndexOf('@')
  if (at === -1) return []
  const userInfo = authority.slice(0, at)
  const colon = userInfo.indexOf(':')
  if (colon !== -1 && colon < userInfo.length - 1) {
    const password = decodeName(userInfo.slice(colon + 1))
    if (isPlaceholder(password) || isStandIn(password) || isCodeReference(password)) return [KEPT]
    return [{ start: from + colon + 1, end: from + at, what: "a URL's password" }]
  }
  const user = colon === -1 ? userInfo : userInfo.slice(0, colon)
  if (user === '') return []
  if (!isCredentialValue('weak', decodeName(user))) return [KEPT]
  return [{ start: from, end: from + user.length, what: "a URL's user name" }]
}

function querySpans(url: string): SecretSpan[] {
  const q = url.indexOf('?')
  if (q === -1) return []
  const hash = url.indexOf('#', q)
  const spans: SecretSpan[] = []
  let at = q + 1
  for (const pair of url.slice(q + 1, hash === -1 ? undefined : hash).split('&')) {
    const eq = pair.indexOf('=')
    const name = eq > 0 ? decodeName(pair.slice(0, eq)) : ''
    const value = decodeName(pair.slice(eq + 1))
    if (eq > 0 && eq < pair.length - 1 && isSecretParamName(name)) {
      if (!isCredentialValue(credentialName(name) === 'strong' ? 'strong' : 'weak', value)) {
        spans.push(KEPT)
        at += pair.length + 1
        continue
      }
      spans.push({
        start: at + eq + 1,
        end: at + pair.length,
        what: `the ${name} parameter of a URL`,
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
