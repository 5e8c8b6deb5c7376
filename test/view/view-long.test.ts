/// <reference lib="dom" />
// The functions given to page.evaluate run in the page, where the DOM is.
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseCassette } from '@agent-tape/core'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../cli/support/cli.js'
import { browserTestsSkipped, launchChromium } from './support/chromium.js'
import { type LongDivergence, recordLongDivergence } from './support/long-divergence.js'
import { openMeasured } from './support/metrics.js'
import { FILLER } from './support/pages.js'

// The divergence page of a long run, as a user finds their way in it: a 301-step tool loop
// (601 decisions) whose replay missed at decision #303, opened in Chromium. The folds open by
// mouse and by keyboard, the outline and its filter lead to a decision, the keys go from
// decision to decision and from difference to difference, and a permalink lands on its decision
// in a wide window and a phone-sized one.
const work = mkdtempSync(join(tmpdir(), 'agent-tape-view-long-'))

describe.skipIf(browserTestsSkipped())('the divergence page of a long run', () => {
  let browser: Browser
  let run: LongDivergence
  let file: string
  const problems: string[][] = []

  beforeAll(async () => {
    browser = await launchChromium()
    const root = join(work, 'long')
    mkdirSync(root)
    run = await recordLongDivergence(root, 301, { record: FILLER })
    file = join(work, 'divergence.html')
    const result = await runCli(['view', run.cassette, '--run', run.run, '-o', file], root)
    expect(result.code, result.stderr).toBe(0)
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    expect(problems.flat(), 'requests that left a page, errors in it').toEqual([])
  })

  /** The page at `hash`, drawn, in a window of the given size. */
  async function open(hash = '', width = 1400, height = 900): Promise<Page> {
    const opened = await openMeasured(browser, file, { width, height }, hash)
    // Kept whole: what fails in a page later (on a click) is added to it then.
    problems.push(opened.problems)
    return opened.page
  }

  /** The decision marked current, whether it has the focus, and where its top is in the window. */
  const current = (page: Page) =>
    page.evaluate(() => {
      const node = document.querySelector<HTMLElement>('#decisions .current')
      const top = node ? Math.round(node.getBoundingClientRect().top) : null
      return {
        id: node?.id,
        focused: document.activeElement === node,
        inView: top !== null && top >= 0 && top < window.innerHeight - 50,
        outline: document.querySelector('#outline [aria-current]')?.getAttribute('href'),
      }
    })

  const listed = (page: Page) =>
    page.$$eval('#decisions .rows > li', (rows) =>
      rows.map((r) =>
        r.classList.contains('fold') ? r.textContent : `${r.id} ${r.getAttribute('data-verdict')}`,
      ),
    )

  it('opens on the miss: what replayed and what was never reached folded around it', async () => {
    expect({ recorded: run.recorded, reached: run.reached, missedSeq: run.missedSeq }).toEqual({
      recorded: 601,
      reached: 303,
      missedSeq: 303,
    })
    const page = await open()
    expect(await listed(page)).toEqual([
      '▸302 decisions the same: steps 1–151 (#1–#302)',
      'd303 missed',
      '▸298 decisions not reached: steps 152–301 (#304–#601)',
    ])
    expect(await current(page)).toEqual({ id: 'd303', focused: false, inView: true, outline: '#d303' })
    expect(await page.$eval('.verdict-line', (p) => p.textContent)).toMatch(
      /^diverged at decision #303 \(step 152\): 302 the same, 1 missed, 0 changed, 0 added, 298 not reached of 601 recorded$/,
    )
    // The changed words of the system prompt: summarize, then report.
    const words = await page.$eval('#d303 .edit', (e) => ({
      name: e.querySelector('.edit-name strong')?.textContent,
      path: e.querySelector('.edit-name code')?.textContent,
      del: [...e.querySelectorAll('del')].map((d) => d.textContent),
      ins: [...e.querySelectorAll('ins')].map((d) => d.textContent),
    }))
    expect(words).toEqual({
      name: 'message 1 (system)',
      path: 'body.messages[0].content',
      del: ['summarize'],
      ins: ['report'],
    })
    // Opened whole, the missed request is the run's, message for message: 304 of them, read back
    // from the chain of lists each extending the one before.
    await page.click('#d303 article.card.missed details.whole > summary')
    await page.waitForSelector('#d303 article.card.missed .whole-body')
    expect(await page.$$eval('#d303 article.card.missed .transcript > li', (li) => li.length)).toBe(304)
    await page.click('#d303 article.card.missed .whole-body > .part:last-child summary')
    // The recorded JSON is built when its details open (on the toggle event, after the click).
    await page.waitForSelector('#d303 article.card.missed .whole-body > .part:last-child pre')
    const recorded = await page.$eval('#d303 article.card.missed .whole-body > .part:last-child pre', (p) =>
      JSON.parse(p.textContent ?? ''),
    )
    const missed = parseCassette(readFileSync(join(work, 'long', run.run), 'utf8'), run.run).decisions.at(-1)!
    expect(recorded.in).toEqual(missed.in)
    await page.close()
  })

  it('opens a fold by mouse, from the list or from the outline, and builds what comes into sight', async () => {
    const page = await open()
    await page.click('li.fold[data-verdict="same"] > button.fold-toggle')
    expect((await listed(page)).slice(0, 3)).toEqual(['d1 same', 'd2 same', 'd3 same'])
    // The fold's first block is built; the others as they are scrolled near.
    expect(await page.$$eval('li.row[data-verdict="same"]', (r) => r.length)).toBeLessThan(302)
    const outline = await page.$$eval('#outline .o-list > *', (n) =>
      n.map((x) => x.getAttribute('href') ?? x.textContent),
    )
    expect(outline.slice(0, 2)).toEqual(['#d1', '#d2'])
    expect(outline).toHaveLength(302 + 1 + 1)
    // The outline's own fold, for the decisions never reached: opened, and the first of them shown.
    await page.click('#outline button.o-fold')
    expect(await current(page)).toEqual({ id: 'r304', focused: true, inView: true, outline: '#r304' })
    expect(await page.evaluate(() => location.hash)).toBe('#r304')
    expect(await page.$$eval('#outline .o-list > *', (n) => n.length)).toBe(601)
    // A click on an outline entry far down the list: its block is built, and it is shown.
    await page.click('#outline a[href="#r590"]')
    expect(await current(page)).toEqual({ id: 'r590', focused: true, inView: true, outline: '#r590' })
    await page.close()
  })

  it('opens a fold and moves by keyboard: Enter, j / k, n / p, and Enter on the outline', async () => {
    const page = await open()
    await page.focus('li.fold[data-verdict="same"] > button.fold-toggle')
    await page.keyboard.press('Enter')
    // The fold's button is gone: the keyboard goes on from the first decision it held.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('d1')
    await page.keyboard.press('j')
    expect(await current(page)).toEqual({ id: 'd2', focused: true, inView: true, outline: '#d2' })
    await page.keyboard.press('n')
    expect(await current(page)).toEqual({ id: 'd303', focused: true, inView: true, outline: '#d303' })
    await page.keyboard.press('p')
    expect((await current(page)).id).toBe('d303')
    await page.keyboard.press('k')
    expect(await current(page)).toEqual({ id: 'd302', focused: true, inView: true, outline: '#d302' })
    // From inside a decision (a card's summary in the miss's row), j goes on from that decision.
    await page.focus('#d303 article.card.missed details.whole > summary')
    await page.keyboard.press('j')
    expect(await current(page)).toEqual({ id: 'r304', focused: true, inView: true, outline: '#r304' })
    await page.keyboard.press('k')
    expect((await current(page)).id).toBe('d303')
    // Tab into the outline and Enter on an entry goes to it.
    await page.focus('#outline a[href="#d150"]')
    await page.keyboard.press('Enter')
    expect(await current(page)).toEqual({ id: 'd150', focused: true, inView: true, outline: '#d150' })
    await page.close()
  })

  it('lands on a permalink, in a fold or not, in a wide window and a phone-sized one', async () => {
    for (const [width, height] of [
      [1400, 900],
      [390, 844],
    ] as const) {
      for (const id of ['d40', 'd303', 'r450']) {
        const page = await open(`#${id}`, width, height)
        const at = await current(page)
        expect({ ...at, outline: undefined }, `#${id} at ${width}×${height}`).toEqual({
          id,
          focused: true,
          inView: true,
          outline: undefined,
        })
        await page.close()
      }
    }
  })

  it('filters the outline by status, kind, tool and text', async () => {
    const page = await open()
    const entries = () => page.$$eval('#outline .o-list > a', (a) => a.map((x) => x.getAttribute('href')))
    await page.select('#filter-status', 'differences')
    expect(await entries()).toEqual(['#d303'])
    expect(await page.$eval('.o-count', (p) => p.textContent)).toBe('1 of 601 decisions match')
    await page.select('#filter-status', 'not reached')
    await page.select('#filter-kind', 'tool')
    expect(await entries()).toHaveLength(149)
    await page.select('#filter-status', '')
    await page.select('#filter-kind', '')
    await page.select('#filter-tool', 'lookup')
    // Every tool call (300), and every request answered with a call to it (299: the miss has no
    // answer, and the last request answered with text): the first 500 listed.
    expect(await page.$eval('.o-count', (p) => p.textContent)).toBe(
      '599 of 601 decisions match (the first 500 listed)',
    )
    expect(await entries()).toHaveLength(500)
    await page.select('#filter-tool', '')
    await page.type('#filter-text', 'record 151:')
    // The tool call that returned it, and the request that sent it back to the model.
    expect(await entries()).toEqual(['#d302', '#d303'])
    await page.keyboard.press('Escape')
    expect(await page.$$eval('#outline .o-list > *', (n) => n.length)).toBe(3)
    await page.close()
  })
})
