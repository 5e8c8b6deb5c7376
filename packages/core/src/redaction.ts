import { ConfigError } from './errors.js'
import { mapStrings } from './json-walk.js'

/**
 * A user redactor for the human-readable copy (`in`) of each recorded input. Redaction never
 * changes the key: the key hashes the intact input, humans read the redacted copy.
 *
 * @example
 * { name: 'email', pattern: /[\w.+-]+@[\w-]+\.[\w.]+/g }           // → "[REDACTED:email]"
 * (text, path) => (path.endsWith('.ssn') ? '[SSN]' : text)
 */
export type Redactor =
  | { name: string; pattern: RegExp; replacement?: string }
  | ((text: string, path: string) => string)

export function applyRedactors(value: unknown, redactors: readonly Redactor[]): unknown {
  if (redactors.length === 0) return value
  return mapStrings(value, (text, path) => {
    let out = text
    for (const redactor of redactors) {
      if (typeof redactor === 'function') out = redactor(out, path)
      else out = out.replace(redactor.pattern, redactor.replacement ?? `[REDACTED:${redactor.name}]`)
    }
    return out
  })
}

export function validateRedactors(redactors: readonly Redactor[]): void {
  for (const redactor of redactors) {
    if (typeof redactor === 'function') continue
    if (!(redactor.pattern instanceof RegExp) || !redactor.pattern.global) {
      throw new ConfigError({
        what: `Invalid redactor ${JSON.stringify(redactor.name)}`,
        why: 'its pattern must be a RegExp with the g flag, so every occurrence is redacted',
        fix: `Write it as /…/g`,
      })
    }
  }
}
