import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isSecretLeakError, openTape } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { describe, expect, it } from 'vitest'
import { createSecretChecks, PREVIOUS } from '../support/secret-checks.js'
import { printedPieces, SECRET_FORMS, writtenPieces } from '../support/secret-forms.js'
import { PLACES } from '../support/secret-places.js'

// Every secret form in every place a run carries it through the tape: what goes in (tool
// arguments, a request body) is written redacted, what comes back (a tool's result or error, a
// model's answer, streamed or not, and the arguments of the tools it calls) refuses the write.
const { dir } = createSecretChecks('secret-forms')
const store = createFileStore(dir)

describe.each(SECRET_FORMS.map((f) => [f.class, f.id, f] as const))('%s: %s', (_, id, form) => {
  it.each(PLACES.map((p) => [p.name, p] as const))('in %s', async (name, place) => {
    const file = join(dir, `${id}-${name.replace(/\W+/g, '-')}.jsonl`)
    writeFileSync(file, PREVIOUS)
    const tape = await openTape({
      id,
      cassettePath: file.slice(dir.length + 1),
      store,
      mode: 'update',
      env: form.env ?? {},
    })
    await place.run(tape, form)
    const error = await tape.finish().then(
      () => undefined,
      (e: unknown) => e,
    )
    const written = readFileSync(file, 'utf8')
    if (place.side === 'in') {
      expect(error, String(error)).toBeUndefined()
      expect(written).not.toBe(PREVIOUS)
      expect(writtenPieces(written, form)).toEqual([])
      expect(written).toContain('[REDACTED:')
    } else {
      expect(isSecretLeakError(error), `${id} in ${name}: the write was not refused`).toBe(true)
      expect(written).toBe(PREVIOUS)
      expect(printedPieces((error as Error).message, form)).toEqual([])
    }
  })
})

it('tries every class in every place: at least 150 placements', () => {
  const classes = new Set(SECRET_FORMS.map((f) => f.class))
  expect([...classes].sort()).toEqual([
    'boundary',
    'compatibility',
    'encoded',
    'escaped',
    'markup',
    'member-name',
    'named',
    'placeholder-neighbour',
    'wrapped',
  ])
  expect(SECRET_FORMS.length * PLACES.length).toBeGreaterThanOrEqual(150)
})
