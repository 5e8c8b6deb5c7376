import { SecretScanner } from '@agent-tape/core/internal'
import { expect, it } from 'vitest'
import { LOOK_ALIKES, SECRET_CORPUS } from '../support/secret-corpus.js'

it('the corpus has more than 60 distinct shapes', () => {
  expect(new Set(SECRET_CORPUS.map((s) => s.id)).size).toBe(SECRET_CORPUS.length)
  expect(SECRET_CORPUS.length).toBeGreaterThanOrEqual(60)
})

it.each(SECRET_CORPUS.map((s) => [s.id, s] as const))('finds and redacts %s inside prose', (_, sample) => {
  const scanner = new SecretScanner()
  const text = `Here it is: ${sample.text} (do not share)`
  expect(scanner.matches(text).length).toBeGreaterThan(0)
  const redacted = scanner.redactText(text)
  expect(redacted).toContain('[REDACTED:')
  expect(redacted.includes(sample.secret)).toBe(false)
})

it.each(LOOK_ALIKES.map((s) => [s.id, s.text] as const))('leaves the look-alike %s alone', (_, text) => {
  expect(new SecretScanner().matches(text)).toEqual([])
})

// Where a key stands must not hide it: in a URL path, after `=` or `: `, inside quotes or
// backticks, after `_`, before `_` or `/`. A key with a distinctive prefix is found after a
// letter too; one with a short or common prefix (`sk-`, `SK`, `key-`, `AKIA`) needs a separator.
// A base64 value cannot be told from a path segment after it (`/` is one of its characters),
// and a name glued to `x:` is read as part of an identifier (an ARN's `…:secret:name`).
const CONTEXTS: [string, (text: string) => string][] = [
  ['in a URL path', (t) => `https://api.example.com/v1/keys/${t}/rotate`],
  ['after =', (t) => `export VALUE=${t}`],
  ['after a colon', (t) => `value: ${t}`],
  ['in double quotes', (t) => `{"value": "${t}"}`],
  ['in single quotes', (t) => `value = '${t}'`],
  ['in backticks', (t) => `run \`${t}\` once`],
  ['after an underscore', (t) => `MY_${t}`],
  ['before an underscore', (t) => `${t}_rotated`],
  ['at the end of a line', (t) => `first line\n${t}\nlast line`],
]
const SHORT_PREFIX =
  /^(?:sk-[^pasN]|SK|key-|AKIA|r8_|fw_|csk-|tvly-|hf_|dapi|pul-|vcp_|cfut_|1\/\/0|[0-9a-f]{32}-us|re_|sk_[0-9a-f]|sl\.)/

const BASE64_BODIED = new Set(['aws-secret-key-beside-id', 'basic-credentials'])

it.each(
  SECRET_CORPUS.flatMap((s) =>
    CONTEXTS.filter(([where]) => !(where === 'in a URL path' && BASE64_BODIED.has(s.id))).map(
      ([where, place]) => [s.id, where, s, place] as const,
    ),
  ),
)('finds %s %s', (_, where, sample, place) => {
  // Samples that need their keyword before them (`password=…`) keep it; the context goes around.
  const text = place(sample.text)
  const redacted = new SecretScanner().redactText(text)
  expect(redacted.includes(sample.secret), `${sample.id} ${where}: ${redacted}`).toBe(false)
})

it.each(
  SECRET_CORPUS.filter((s) => s.text === s.secret && !SHORT_PREFIX.test(s.secret)).map(
    (s) => [s.id, s] as const,
  ),
)('finds %s right after a letter', (_, sample) => {
  const redacted = new SecretScanner().redactText(`token${sample.text}`)
  expect(redacted.includes(sample.secret.slice(sample.prefix)), redacted).toBe(false)
})
