import { createHash } from 'node:crypto'

/** The hash a cassette stores for an env value: salted with the salt in its header. */
export function envHash(cassette: string, value: string): string {
  const salt = JSON.parse(cassette.slice(0, cassette.indexOf('\n'))).envSalt
  if (typeof salt !== 'string') throw new Error('the cassette header has no envSalt')
  return `sha256:${createHash('sha256').update(`${salt}\0`).update(value).digest('hex').slice(0, 16)}`
}
