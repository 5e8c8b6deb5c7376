/// <reference lib="dom" />
// The functions given to page.evaluate and evaluateOnNewDocument run in the page, where the DOM is.
import { mkdirSync, statSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'puppeteer-core'

/**
 * What a page of `agent-tape view` should weigh and cost to open, whatever run it shows. The
 * metrics test holds a page's bytes, elements and miss to these once `enforced` is on; the
 * timings move with the machine's load, so the bench reports them (`node bench/run.mjs --only view`).
 */
export const TARGETS = {
  /** Assert the limits below (off while the page is being rewritten to meet them). */
  enforced: true,
  /** Bytes of the HTML file of a 601-decision run's divergence page. */
  maxBytes: 1_000_000,
  /** Elements in the document once it has drawn itself (`html[data-ready="true"]`). */
  maxElementsAtLoad: 5000,
  /** First contentful paint, from the start of navigation. */
  maxFirstPaintMs: 500,
  /** The longest task on the main thread while the page opens. */
  maxLongTaskMs: 100,
  /** A divergence page shows its miss without scrolling: its top, and this much of it at least. */
  missInFirstViewport: true,
  minMissVisiblePx: 120,
} as const

declare global {
  interface Window {
    /** Durations of the page's long tasks (over 50 ms), in ms, as the observer saw them. */
    __longTasks?: number[]
  }
}

/**
 * Collects the page's long tasks into `window.__longTasks` from before its first script runs:
 * a `longtask` PerformanceObserver (buffered), registered on every new document of the page.
 */
export async function installLongTaskObserver(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(() => {
    const tasks: number[] = []
    window.__longTasks = tasks
    try {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) tasks.push(entry.duration)
      }).observe({ type: 'longtask', buffered: true })
    } catch {
      // A browser without the Long Tasks API: the list stays empty, and pageMetrics says so.
      window.__longTasks = undefined
    }
  })
}

/** What one page cost to open. */
export interface PageMetrics {
  /** Bytes of the HTML file. */
  bytes: number
  /** Elements in the document once it has drawn itself. */
  elements: number
  /** First paint and first contentful paint, ms from the start of navigation. */
  firstPaintMs: number | undefined
  firstContentfulPaintMs: number | undefined
  /** When the frame after the page drew itself was painted, ms from the start of navigation. */
  drawnMs: number
  /** The longest task on the main thread (0 when none was over 50 ms). */
  longestTaskMs: number
  /** Every long task's duration, in order. */
  longTasks: number[]
}

/** Waits until the page has drawn itself and painted that: two animation frames after `data-ready`. */
export async function waitForDrawn(page: Page): Promise<number> {
  await page.waitForSelector('html[data-ready="true"]', { timeout: 120_000 })
  return page.evaluate(
    () =>
      new Promise<number>((done) =>
        requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))),
      ),
  )
}

/**
 * The metrics of a page opened (with {@link installLongTaskObserver} installed before it
 * loaded) from `file`: its weight, its elements once drawn, its paints and long tasks.
 */
export async function pageMetrics(page: Page, file: string): Promise<PageMetrics> {
  const drawnMs = await waitForDrawn(page)
  const inPage = await page.evaluate(() => {
    const paint = (name: string) =>
      performance.getEntriesByType('paint').find((e) => e.name === name)?.startTime
    return {
      elements: document.getElementsByTagName('*').length,
      firstPaintMs: paint('first-paint'),
      firstContentfulPaintMs: paint('first-contentful-paint'),
      longTasks: window.__longTasks ?? null,
    }
  })
  if (inPage.longTasks === null) throw new Error('this browser does not report long tasks')
  return {
    bytes: statSync(file).size,
    elements: inPage.elements,
    firstPaintMs: inPage.firstPaintMs,
    firstContentfulPaintMs: inPage.firstContentfulPaintMs,
    drawnMs,
    longestTaskMs: Math.max(0, ...inPage.longTasks),
    longTasks: inPage.longTasks,
  }
}

/** Where an element stands against the first viewport, as the page stands once it has loaded. */
export interface ViewportPlace {
  /** Whether the selector matched an element. */
  found: boolean
  /** Whether its top is within the viewport (0 to the viewport's height). */
  inView: boolean
  /** Its top and bottom relative to the viewport, px. */
  top: number
  bottom: number
  /** How much of its height the viewport shows, px. */
  visiblePx: number
  /** Its top from the top of the document, px: how far down the page it is. */
  documentTop: number
  /** Where the page stood scrolled once loaded (a page may scroll itself to its target). */
  scrollY: number
  viewportHeight: number
}

/**
 * Whether the first element `selector` matches lies in the viewport the page shows once
 * loaded: its top at least, measured after the page has drawn and stopped scrolling, so a page
 * that scrolls itself to a target (smoothly, over frames) is judged where it ends up.
 */
export async function inFirstViewport(page: Page, selector: string): Promise<ViewportPlace> {
  await waitForDrawn(page)
  return page.evaluate(async (css: string) => {
    const frame = () => new Promise((done) => requestAnimationFrame(done))
    // Still for five frames in a row, or two seconds at most.
    let still = 0
    let last = window.scrollY
    for (let i = 0; i < 120 && still < 5; i++) {
      await frame()
      still = window.scrollY === last ? still + 1 : 0
      last = window.scrollY
    }
    const node = document.querySelector(css)
    const box = node?.getBoundingClientRect()
    const top = box ? Math.round(box.top) : Number.NaN
    return {
      found: node !== null,
      inView: box !== undefined && top >= 0 && top < window.innerHeight,
      top,
      bottom: box ? Math.round(box.bottom) : Number.NaN,
      visiblePx: box
        ? Math.max(0, Math.round(Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0)))
        : 0,
      documentTop: box ? Math.round(box.top + window.scrollY) : Number.NaN,
      scrollY: Math.round(window.scrollY),
      viewportHeight: window.innerHeight,
    }
  }, selector)
}

/** A PNG of what the viewport shows, written to `path` (its folder made). */
export async function screenshotTo(page: Page, path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true })
  await page.screenshot({ path: path as `${string}.png`, type: 'png' })
}

export interface Viewport {
  width: number
  height: number
}

/** The windows a page is measured in: a wide one and a phone's. */
export const VIEWPORTS: Record<'wide' | 'narrow', Viewport> = {
  wide: { width: 1400, height: 900 },
  narrow: { width: 390, height: 844 },
}

/** A page opened and drawn, and what failed in it (a request that left it, an error). */
export interface MeasuredPage {
  page: Page
  problems: string[]
}

/**
 * Opens a page from disk in a fresh tab of `browser` at `viewport`, with the long-task
 * observer installed, every request other than for the file itself refused and reported, and
 * the page's errors collected; resolves once it has drawn itself.
 */
export async function openMeasured(
  browser: Browser,
  file: string,
  viewport: Viewport,
  /** A permalink to open the page at: `#d303`. */
  hash = '',
): Promise<MeasuredPage> {
  const page = await browser.newPage()
  const problems: string[] = []
  await page.setViewport({ ...viewport, deviceScaleFactor: 1 })
  await installLongTaskObserver(page)
  const url = pathToFileURL(file).href
  await page.setRequestInterception(true)
  page.on('request', (request) => {
    if (request.url().split('#')[0] === url) return void request.continue()
    problems.push(`${basename(file)} asked for ${request.url()}`)
    void request.abort()
  })
  page.on('pageerror', (error) => problems.push(`${basename(file)}: ${(error as Error).message ?? error}`))
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${basename(file)}: ${message.text()}`)
  })
  await page.goto(`${url}${hash}`, { waitUntil: 'load', timeout: 120_000 })
  await waitForDrawn(page)
  return { page, problems }
}

/** Metrics of several openings of one page: the timings are the best of the tries. */
export interface BestMetrics extends PageMetrics {
  tries: PageMetrics[]
}

/**
 * Opens `file` up to `maxTries` times (a fresh tab each) and keeps, for each timing, the best
 * of the tries: on a machine shared with other work, load only ever adds to a timing, so the
 * smallest is the nearest to what the page itself costs. Stops early once a try meets `good`.
 */
export async function bestOfTries(
  browser: Browser,
  file: string,
  viewport: Viewport,
  good: (m: PageMetrics) => boolean,
  maxTries = 8,
): Promise<BestMetrics> {
  const tries: PageMetrics[] = []
  const problems: string[] = []
  while (tries.length < maxTries && !tries.some(good)) {
    const opened = await openMeasured(browser, file, viewport)
    tries.push(await pageMetrics(opened.page, file))
    problems.push(...opened.problems)
    await opened.page.close()
  }
  if (problems.length > 0) throw new Error(`problems while opening ${file}:\n${problems.join('\n')}`)
  const least = (pick: (m: PageMetrics) => number | undefined) => {
    const values = tries.map(pick).filter((v): v is number => v !== undefined)
    return values.length > 0 ? Math.min(...values) : undefined
  }
  const quickest = tries.reduce((a, b) => (b.longestTaskMs < a.longestTaskMs ? b : a))
  return {
    ...tries[0]!,
    firstPaintMs: least((m) => m.firstPaintMs),
    firstContentfulPaintMs: least((m) => m.firstContentfulPaintMs),
    drawnMs: least((m) => m.drawnMs)!,
    longestTaskMs: quickest.longestTaskMs,
    longTasks: quickest.longTasks,
    tries,
  }
}

/** The metrics as one log line. */
export function describeMetrics(name: string, m: BestMetrics): string {
  const ms = (v: number | undefined) => (v === undefined ? '–' : `${Math.round(v)} ms`)
  return [
    `${name}: ${(m.bytes / 1e6).toFixed(2)} MB, ${m.elements} elements at load`,
    `first contentful paint ${ms(m.firstContentfulPaintMs)} (first paint ${ms(m.firstPaintMs)})`,
    `drawn ${ms(m.drawnMs)}, longest task ${ms(m.longestTaskMs)} (${m.longTasks.length} long tasks)`,
    `tries: ${m.tries.map((t) => `${ms(t.firstContentfulPaintMs)}/${ms(t.longestTaskMs)}`).join(', ')}`,
  ].join(', ')
}
