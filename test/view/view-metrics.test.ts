import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../cli/support/cli.js'
import { browserTestsSkipped, launchChromium } from './support/chromium.js'
import { recordLongDivergence } from './support/long-divergence.js'
import {
  inFirstViewport,
  openMeasured,
  type PageMetrics,
  pageMetrics,
  screenshotTo,
  TARGETS,
  VIEWPORTS,
  type ViewportPlace,
} from './support/metrics.js'
import { divergeSupportAgent, FILLER, SUPPORT_CASSETTE } from './support/pages.js'

// What the pages of `agent-tape view` hold once open in Chromium, for long runs and for the
// README's divergence, in a wide and a phone-sized window: their bytes, their elements, and where
// the miss stands; logged every run, asserted against TARGETS once they are enforced. What a page
// costs to open (its first contentful paint, its longest task) moves with the machine's load, so
// the bench measures it (`node bench/run.mjs --only view`), not this test. Screenshots of the first
// viewport are written to the folder AGENT_TAPE_VIEW_SHOTS names, with the numbers in metrics.json.
const SHOTS_ENV = 'AGENT_TAPE_VIEW_SHOTS'
/** The decision a divergence page marks as the miss. */
const MISSED = 'li.row[data-verdict="missed"]'
/** The first decision of a recording's page. */
const FIRST_CARD = 'article.card'

/** What a page weighs besides its data: its script and style sheet (about 60 KB), with room. */
const PAGE_OWN_BYTES = 100_000

const work = mkdtempSync(join(tmpdir(), 'agent-tape-view-metrics-'))
const shots = process.env[SHOTS_ENV]

interface Measured {
  page: string
  viewport: string
  metrics: PageMetrics
  /** Where the miss (or the first decision of a recording) stands once the page has loaded. */
  target: { selector: string } & ViewportPlace
  screenshot?: string
}

/** `agent-tape view <args> -o <work>/<name>.html`, as a user runs it; returns the page's path. */
async function view(name: string, args: string[], cwd: string): Promise<string> {
  const out = join(work, `${name}.html`)
  const result = await runCli(['view', ...args, '-o', out], cwd)
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  return out
}

describe.skipIf(browserTestsSkipped())('what a page of agent-tape view holds when it opens', () => {
  let browser: Browser
  const measured: Measured[] = []

  beforeAll(async () => {
    browser = await launchChromium()
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    if (shots) writeFileSync(join(shots, 'metrics.json'), `${JSON.stringify(measured, null, 2)}\n`)
  })

  /** Measures a page in both windows, logs it, and asserts what every page must hold. */
  async function measurePage(
    name: string,
    file: string,
    target: string,
    { maxBytes, cassetteBytes }: { maxBytes?: number; cassetteBytes?: number } = {},
  ): Promise<Measured[]> {
    const results: Measured[] = []
    for (const viewport of Object.values(VIEWPORTS)) {
      const { page, problems } = await openMeasured(browser, file, viewport)
      const metrics = await pageMetrics(page, file)
      const place = await inFirstViewport(page, target)
      // A divergence page shows the miss's changed words without scrolling: a word inserted, seen.
      const words = target === MISSED ? await inFirstViewport(page, `${MISSED} .word-diff ins`) : undefined
      const screenshot = shots ? join(shots, `${name}-${viewport.width}x${viewport.height}.png`) : undefined
      if (screenshot) await screenshotTo(page, screenshot)
      await page.close()
      const result: Measured = {
        page: name,
        viewport: `${viewport.width}×${viewport.height}`,
        metrics,
        target: { selector: target, ...place },
        ...(screenshot ? { screenshot } : {}),
      }
      console.log(
        `${name} at ${result.viewport}: ${(metrics.bytes / 1e6).toFixed(2)} MB, ${metrics.elements} elements at load; ${target} ${place.inView ? `in the first viewport (${place.visiblePx} px of it shown)` : 'not in the first viewport'}, its top ${place.documentTop} px down the page (scrolled to ${place.scrollY})`,
      )
      measured.push(result)
      results.push(result)

      expect(problems, `${name}: requests that left the page, errors`).toEqual([])
      expect(metrics.bytes).toBeGreaterThan(0)
      expect(metrics.elements).toBeGreaterThan(10)
      expect(metrics.firstContentfulPaintMs).toBeGreaterThan(0)
      expect(metrics.longestTaskMs).toBeGreaterThanOrEqual(0)
      expect(place.found, `${name}: no ${target}`).toBe(true)
      if (TARGETS.enforced) {
        if (maxBytes !== undefined) expect(metrics.bytes, `${name}: bytes`).toBeLessThanOrEqual(maxBytes)
        // A page grows with its recording, never with the square of the run (it was 6.6 times
        // its cassette): at most half as much again, and its script and style sheet.
        if (cassetteBytes !== undefined) {
          expect(metrics.bytes, `${name}: bytes against its recording's`).toBeLessThanOrEqual(
            1.5 * cassetteBytes + PAGE_OWN_BYTES,
          )
        }
        expect(metrics.elements, `${name}: elements at load`).toBeLessThanOrEqual(TARGETS.maxElementsAtLoad)
        if (target === MISSED && TARGETS.missInFirstViewport) {
          expect(place.inView, `${name}: the miss in the first viewport`).toBe(true)
          expect(place.visiblePx, `${name}: the miss shown`).toBeGreaterThanOrEqual(TARGETS.minMissVisiblePx)
          expect(words?.inView, `${name}: the miss's changed words in the first viewport`).toBe(true)
        }
      }
    }
    return results
  }

  it('a 601-decision run that diverged at decision 303, its cassette about half a megabyte', async () => {
    // The run the page's size target was set on: 601 decisions, a cassette of 394 KB (here a
    // tool result of a sentence a step, on this fake provider's responses).
    const root = join(work, 'long-601')
    mkdirSync(root)
    const d = await recordLongDivergence(root, 301, { record: FILLER })
    expect({ recorded: d.recorded, reached: d.reached, missedSeq: d.missedSeq }).toEqual({
      recorded: 601,
      reached: 303,
      missedSeq: 303,
    })
    const cassetteBytes = statSync(join(root, d.cassette)).size
    console.log(`601-decision cassette: ${(cassetteBytes / 1e6).toFixed(2)} MB`)
    const file = await view('divergence-601', [d.cassette, '--run', d.run], root)
    await measurePage('divergence-601', file, MISSED, { maxBytes: TARGETS.maxBytes, cassetteBytes })
  }, 600_000)

  it('the same run with ten times the tool output: a page that grows with its recording', async () => {
    const root = join(work, 'long-601-heavy')
    mkdirSync(root)
    const d = await recordLongDivergence(root, 301)
    const cassetteBytes = statSync(join(root, d.cassette)).size
    console.log(`601-decision cassette, heavy: ${(cassetteBytes / 1e6).toFixed(2)} MB`)
    const file = await view('divergence-601-heavy', [d.cassette, '--run', d.run], root)
    await measurePage('divergence-601-heavy', file, MISSED, { cassetteBytes })
  }, 600_000)

  it('a 1001-decision recording, and its run that diverged at decision 503', async () => {
    const root = join(work, 'long-1001')
    mkdirSync(root)
    const d = await recordLongDivergence(root, 501)
    expect({ recorded: d.recorded, reached: d.reached, missedSeq: d.missedSeq }).toEqual({
      recorded: 1001,
      reached: 503,
      missedSeq: 503,
    })
    const cassetteBytes = statSync(join(root, d.cassette)).size
    await measurePage('recording-1001', await view('recording-1001', [d.cassette], root), FIRST_CARD, {
      cassetteBytes,
    })
    await measurePage(
      'divergence-1001',
      await view('divergence-1001', [d.cassette, '--run', d.run], root),
      MISSED,
      { cassetteBytes },
    )
  }, 900_000)

  it("the README's divergence: the support agent with its prompt edited", async () => {
    const dir = join(work, 'support-agent')
    mkdirSync(dir)
    const { run } = await divergeSupportAgent(dir)
    const file = await view('divergence-support-agent', [SUPPORT_CASSETTE, '--run', run], dir)
    await measurePage('divergence-support-agent', file, MISSED)
  }, 600_000)
})
