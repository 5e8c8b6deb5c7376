import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openTape, parseCassette } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { describe, expect, it } from 'vitest'
import { ORDINARY_TEXTS } from '../support/ordinary-texts.js'
import { createSecretChecks, PREVIOUS } from '../support/secret-checks.js'
import { PLACES, thirds } from '../support/secret-places.js'

// What a run carries every day is recorded as it is, in every place a secret would be refused
// or redacted: nothing refused, nothing redacted.
const { dir } = createSecretChecks('ordinary-texts')
const store = createFileStore(dir)

describe.each(ORDINARY_TEXTS.map((t) => [t.category, t.id, t] as const))('%s: %s', (_, id, text) => {
  it.each(PLACES.map((p) => [p.name, p] as const))('in %s', async (name, place) => {
    const file = join(dir, `${id}-${name.replace(/\W+/g, '-')}.jsonl`)
    writeFileSync(file, PREVIOUS)
    const tape = await openTape({
      id,
      cassettePath: file.slice(dir.length + 1),
      store,
      mode: 'update',
      env: text.env ?? {},
    })
    const form = { id, class: 'named' as const, value: text.value, secrets: [], encoded: [] }
    await place.run(tape, form)
    await tape.finish()
    const written = readFileSync(file, 'utf8')
    if (!JSON.stringify(text.value).includes('REDACTED')) expect(written).not.toContain('[REDACTED')
    const cassette = parseCassette(written, file)
    const decision = cassette.decisions[0]!
    const carried = JSON.stringify(place.side === 'in' ? decision.in : (decision.out ?? decision.err))
    const value = typeof text.value === 'string' ? text.value : JSON.stringify(text.value)
    // The value whole (as JSON, or as a string), or (in a stream) in the pieces it was cut into.
    const pieces = thirds(value)
    const asString = pieces.every((piece) => carried.includes(JSON.stringify(piece).slice(1, -1)))
    expect(asString || carried.includes(JSON.stringify(text.value)), `${id} in ${name}: ${carried}`).toBe(
      true,
    )
  })
})

it('tries at least 100 ordinary texts', () => {
  expect(ORDINARY_TEXTS.length).toBeGreaterThanOrEqual(100)
  expect(new Set(ORDINARY_TEXTS.map((t) => t.id)).size).toBe(ORDINARY_TEXTS.length)
})
