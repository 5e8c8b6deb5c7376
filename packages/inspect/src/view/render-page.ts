import { createHash } from 'node:crypto'
import {
  AGENT_TAPE_VERSION,
  type Cassette,
  createPrintMask,
  redactCassetteForReading,
  SecretScanner,
  secretEnvValues,
} from '@agent-tape/core/internal'
import { diffCassettes } from '../diff/compare.js'
import { buildSide } from './build-side.js'
import { compactShared } from './compact-shared.js'
import { buildRows, describeRows } from './compare-rows.js'
import { PAGE_SCRIPT, PAGE_STYLE } from './page/page-assets.generated.js'
import type { CardData, PageData, SideData, SideRole } from './page-data.js'
import { REF_KEY, SharedValues } from './shared-values.js'

/** A cassette to show, and the path to name it by. */
export interface ViewInput {
  file: string
  cassette: Cassette
}

export interface ViewOptions {
  /** Secret-like variables of this environment are masked wherever they appear (default `process.env`). */
  env?: Record<string, string | undefined>
}

/**
 * The view of one recorded run as a self-contained HTML page: its decisions as cards, steps
 * down the page and lanes side by side, each opened whole on request. The cassette is redacted
 * as every reader redacts one, and everything shown passes through the CLI's masking; the page
 * loads nothing (its CSP allows no request).
 *
 * @example
 * writeFileSync('run.html', renderRunView({ file, cassette: parseCassette(text, file) }))
 */
export function renderRunView(recording: ViewInput, options: ViewOptions = {}): string {
  recording = readable(recording, options)
  const shared = new SharedValues()
  const side = buildSide('recording', recording.file, recording.cassette, shared)
  return renderPage(
    {
      kind: 'run',
      title: side.header.test || recording.file,
      generator: `agent-tape ${AGENT_TAPE_VERSION}`,
      sides: [side],
      shared: shared.table,
    },
    options,
  )
}

/**
 * Two recordings side by side, aligned as `agent-tape diff` aligns them, each decision with a
 * verdict and its changed fields highlighted. With `run: true` the second is a diverged run
 * (kept by the runner kit): its miss is marked and the decisions it never reached are named so.
 */
export function renderCompareView(
  before: ViewInput,
  after: ViewInput,
  options: ViewOptions & { run?: boolean } = {},
): string {
  before = readable(before, options)
  after = readable(after, options)
  const shared = new SharedValues()
  const isRun = options.run === true
  const roles: [SideRole, SideRole] = isRun ? ['recording', 'run'] : ['before', 'after']
  const a = buildSide(roles[0], before.file, before.cassette, shared)
  const recorded = isRun ? new Set(before.cassette.decisions.map((d) => d.key)) : undefined
  const b = buildSide(roles[1], after.file, after.cassette, shared, recorded)
  const maxMs = Math.max(a.maxMs, b.maxMs)
  a.maxMs = maxMs
  b.maxMs = maxMs
  const diff = diffCassettes(before.file, before.cassette, after.file, after.cassette)
  const rows = buildRows(diff, a, b, isRun, {
    a: before.cassette.decisions.map((d) => d.in),
    b: after.cassette.decisions.map((d) => d.in),
    mask: createPrintMask(options.env ?? process.env, 'shapes'),
  })
  shareSameCards(a, b, shared)
  const test = b.header.test || a.header.test
  return renderPage(
    {
      kind: 'compare',
      title: isRun ? `${test}: the run that diverged` : `${test}: two recordings`,
      generator: `agent-tape ${AGENT_TAPE_VERSION}`,
      sides: [a, b],
      rows,
      verdict: describeRows(rows, a, b, isRun),
      shared: shared.table,
    },
    options,
  )
}

/**
 * The cassette as every reader shows one: its secrets redacted, by shape, by name, in every
 * encoding the scanner reads, and the values of the environment's secret-like variables. A
 * cassette the CLI or the runner kit read is redacted already and is not scanned again; one a
 * caller parsed itself is redacted here, so the page holds no secret whoever calls.
 */
function readable(input: ViewInput, { env = process.env }: ViewOptions): ViewInput {
  const cassette = redactCassetteForReading(input.cassette, new SecretScanner(secretEnvValues(env)))
  return cassette === input.cassette ? input : { ...input, cassette }
}

/**
 * Cards the two sides hold alike, stored once: a diverged run replays its recording up to the
 * miss, so without this the page would carry the first half of the run twice. Each side's card
 * becomes a reference into the shared table (`{"\u0000": i}`), which the page resolves when it
 * starts.
 */
function shareSameCards(a: SideData, b: SideData, shared: SharedValues): void {
  const first = new Map<string, number>()
  a.cards.forEach((card, i) => {
    first.set(JSON.stringify(card), i)
  })
  b.cards.forEach((card, i) => {
    const json = JSON.stringify(card)
    const j = first.get(json)
    if (j === undefined) return
    first.delete(json)
    const ref = { [REF_KEY]: shared.table.push(card) - 1 } as unknown as CardData
    a.cards[j] = ref
    b.cards[i] = ref
  })
}

/** The page: a style sheet, the data as JSON, and the script that draws it; nothing else. */
export function renderPage(data: PageData, { env = process.env }: ViewOptions = {}): string {
  // The data comes from cassettes read through the scanner whole; each string of it again, for
  // shapes and environment values, since some are pieces of a stream (names are cut there).
  const masked = maskStrings(compactShared(data), createPrintMask(env, 'shapes')) as PageData
  const csp = [
    "default-src 'none'",
    `script-src '${sha256(PAGE_SCRIPT)}'`,
    `style-src '${sha256(PAGE_STYLE)}'`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="${escapeHtml(masked.generator)}">
<title>${escapeHtml(masked.title)} · agent-tape</title>
<link rel="icon" href="data:,">
<style>${PAGE_STYLE}</style>
</head>
<body>
<main id="app"><noscript>This page draws itself from the data it holds, with JavaScript. Read the same cassette in a terminal with agent-tape show.</noscript></main>
<script type="application/json" id="agent-tape-data">${scriptJson(masked)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`
}

/**
 * JSON that stays inside its script element whatever the strings in it: `<`, `>` and `&` are
 * written as escapes, so no `</script>` or `<!--` can end or change the element.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function maskStrings(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value)
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, mask))
  if (typeof value !== 'object' || value === null) return value
  // Built as JSON.parse builds it, so that a key such as `__proto__` stays a key.
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [mask(key), maskStrings(child, mask)]),
  )
}

function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`
}
