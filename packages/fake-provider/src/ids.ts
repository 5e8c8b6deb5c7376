import { createHash, randomBytes } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Makes provider-looking ids (`chatcmpl-…`, `toolu_01…`) from a seed and a counter. */
export interface IdFactory {
  /** `length` lower-case hex digits. */
  hex(length: number): string
  /** `length` characters of `[0-9A-Za-z]`. */
  base62(length: number): string
}

/**
 * The same seed gives the same sequence of ids, so a scripted run can be made byte-stable
 * (committed demo cassettes do not churn on re-record); the default seed is random.
 */
export function createIdFactory(seed: string = randomBytes(8).toString('hex')): IdFactory {
  let counter = 0
  const digest = (): Buffer => {
    counter += 1
    return createHash('sha256').update(`${seed}:${counter}`).digest()
  }
  const bytes = (length: number): number[] => {
    const out: number[] = []
    while (out.length < length) out.push(...digest())
    return out.slice(0, length)
  }
  return {
    hex: (length) =>
      bytes(Math.ceil(length / 2))
        .map((b) => b.toString(16).padStart(2, '0'))
        .join('')
        .slice(0, length),
    base62: (length) =>
      bytes(length)
        .map((b) => BASE62[b % 62])
        .join(''),
  }
}
