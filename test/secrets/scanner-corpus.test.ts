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
