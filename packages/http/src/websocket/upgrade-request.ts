import type { ClientRequest, RequestOptions } from 'node:http'
import { findSessionCodec } from '../codecs/index.js'
import type { SessionCodec } from '../codecs/session-codec.js'

/** `http.request` or `https.request` as Node exports them (the originals a stand-in holds). */
export type RequestFunction = (...args: unknown[]) => ClientRequest

/** A WebSocket client's upgrade request, as `http.request` was called with it (the `ws` package's way). */
export interface UpgradeCall {
  /** The session's URL, `ws:` or `wss:`, credentials in its query included. */
  url: URL
  /** The URL the request was made with, when it was given one (`http.request(url, options)`). */
  given: string | URL | undefined
  /** The options the request was made with (none: `{}`). */
  options: RequestOptions & { createConnection?: unknown; [option: string]: unknown }
  callback: ((response: unknown) => void) | undefined
  /** Every request header, names in lower case. */
  headers: Record<string, string>
  codec: SessionCodec
}

/**
 * The upgrade to a WebSocket that `http.request(...args)` (or `https.request`, `secure`) asks
 * for, or `undefined` for any other request. Reads the call forms Node accepts: options, a URL,
 * or a URL and options, each with an optional callback.
 */
export function webSocketUpgradeOf(args: readonly unknown[], secure: boolean): UpgradeCall | undefined {
  const [first, second, third] = args
  const given = typeof first === 'string' || first instanceof URL ? first : undefined
  const rest = given === undefined ? args : args.slice(1)
  const options = (typeof rest[0] === 'object' && rest[0] !== null ? rest[0] : {}) as UpgradeCall['options']
  const headers = lowerCaseHeaders(options.headers)
  if (headers.upgrade?.toLowerCase() !== 'websocket') return undefined
  const callback = [second, third].find((a): a is (response: unknown) => void => typeof a === 'function')
  const base = given === undefined ? undefined : new URL(given)
  const protocol = (options.protocol as string | undefined) ?? base?.protocol ?? (secure ? 'https:' : 'http:')
  const host = String(options.hostname ?? options.host ?? base?.hostname ?? 'localhost').replace(/:\d+$/, '')
  const port = options.port ?? base?.port
  const path = (options.path as string | undefined) ?? (base ? `${base.pathname}${base.search}` : '/')
  const scheme = protocol === 'https:' || protocol === 'wss:' ? 'wss:' : 'ws:'
  const name = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  const url = new URL(`${scheme}//${name}${port ? `:${port}` : ''}${path}`)
  return {
    url,
    given,
    options,
    callback,
    headers,
    codec: findSessionCodec(url),
  }
}

function lowerCaseHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (typeof headers !== 'object' || headers === null) return out
  const entries = Array.isArray(headers)
    ? pairs(headers as string[])
    : Object.entries(headers as Record<string, unknown>)
  for (const [name, value] of entries)
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  return out
}

function pairs(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = []
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!])
  return out
}

/** The subprotocols a client offers, those that carry a credential left out. */
export function offeredProtocols(call: UpgradeCall): string[] {
  const offered = call.headers['sec-websocket-protocol']
  if (!offered) return []
  return offered
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '' && !call.codec.credentialProtocols.some((prefix) => p.startsWith(prefix)))
}

/**
 * What keys the opening of a session: the API, its path and query (credentials left out), the
 * subprotocols and the headers that change what the server does. Not the host: a session
 * recorded against one server replays for another at the same path, as model requests do.
 */
export function openInput(call: UpgradeCall): Record<string, unknown> {
  const { url, codec } = call
  const query = new URLSearchParams(url.search)
  for (const name of [...query.keys()]) if (codec.credentialQuery.includes(name)) query.delete(name)
  const search = query.toString()
  const headers: Record<string, string> = {}
  for (const name of codec.behaviourHeaders) {
    const value = call.headers[name]
    if (value !== undefined) headers[name] = value
  }
  return {
    api: codec.name,
    frame: 'open',
    url: `${url.pathname}${search ? `?${search}` : ''}`,
    protocols: offeredProtocols(call),
    headers,
  }
}

/** The session's URL as it may be printed: its credentials replaced. */
export function printableUrl(call: UpgradeCall): string {
  const url = new URL(call.url)
  for (const name of [...url.searchParams.keys()])
    if (call.codec.credentialQuery.includes(name)) url.searchParams.set(name, '***')
  return url.href
}
