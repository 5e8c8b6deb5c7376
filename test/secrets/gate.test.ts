import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { REPO_ROOT } from '../support/fixture-project.js'
import { CAPTURE_SURFACES } from '../support/gate-capture.js'
import { COMMAND_SURFACES } from '../support/gate-command.js'
import {
  blockIn,
  DOCS,
  README,
  renderDocsBlock,
  renderReadmeBlock,
  writeBlock,
} from '../support/gate-docs.js'
import { controlItem, ordinaryItems, secretItems } from '../support/gate-items.js'
import { TAPE_SURFACES } from '../support/gate-places.js'
import { PRINTER_SURFACES } from '../support/gate-printers.js'
import { alone } from '../support/gate-tape.js'
import { readReadmeSection } from '../support/readme-section.js'
import { byValue, type GateMeasure, measureGate } from '../support/secret-gate.js'

// The gate, measured: every secret of the corpus and every ordinary text, through every place a
// run carries a value (tool calls, requests and answers in each provider's stream shape, MCP, a
// captured run, a recorded command line) and every printer, each through the real writer or
// printer. What it counts is what docs/secrets.md and the README publish.
const UPDATE = process.env.UPDATE_SECRET_GATE === '1'
const GROUPS = [
  ...TAPE_SURFACES.map(alone),
  ...CAPTURE_SURFACES.map(alone),
  COMMAND_SURFACES,
  PRINTER_SURFACES,
]
let measure: GateMeasure

beforeAll(async () => {
  measure = await measureGate(GROUPS, secretItems(), ordinaryItems())
}, 600_000)

it('carries the values into every place: one no scan can know is written or printed in each that shows values', async () => {
  const control = await measureGate(GROUPS, [controlItem()], [])
  const found = new Set([...control.written, ...control.printed].map((f) => f.surface))
  // The summaries name tapes and views, verify names decisions: none shows a value.
  expect(control.surfaces.map((s) => s.name).filter((name) => !found.has(name))).toEqual([
    'the run summary',
    'the GitHub step summary',
    'agent-tape verify',
  ])
}, 120_000)

it('puts at least 500 placements of secrets over at least 12 places, and at least 300 ordinary texts', () => {
  expect(measure.surfaces.length).toBeGreaterThanOrEqual(12)
  expect(measure.placements).toBeGreaterThanOrEqual(500)
  expect(measure.ordinary).toBeGreaterThanOrEqual(300)
})

it('writes no piece of a secret in any file', () => {
  expect(byValue(measure.written)).toEqual([])
})

it('prints no more than 4 characters of a secret anywhere', () => {
  expect(byValue(measure.printed)).toEqual([])
})

it('refuses no ordinary text', () => {
  expect(byValue(measure.refused)).toEqual([])
})

it('redacts no ordinary text', () => {
  expect(byValue(measure.redacted)).toEqual([])
})

it('publishes its numbers in docs/secrets.md and the README', () => {
  const docs = renderDocsBlock(measure)
  const readme = renderReadmeBlock(measure)
  if (UPDATE) {
    writeBlock(DOCS, docs)
    writeBlock(README, readme)
  }
  expect(blockIn(DOCS), 'run the test with UPDATE_SECRET_GATE=1 to rewrite them').toBe(docs)
  expect(blockIn(README), 'run the test with UPDATE_SECRET_GATE=1 to rewrite them').toBe(readme)
  // Where a reader looks: first thing in the secrets page, and next to the README's word on a refusal.
  const section = readReadmeSection('What the gate catches, measured', DOCS).section
  expect(section).toContain(docs)
  expect(section).toContain('ROT13')
  const page = readFileSync(join(REPO_ROOT, DOCS), 'utf8')
  expect(page.indexOf(section)).toBeLessThan(page.indexOf('\n## What is written\n'))
  expect(readReadmeSection('Troubleshooting').section).toContain(readme)
})
