/// <reference lib="dom" />
// The functions given to page.evaluate run in the page, where the DOM is.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { REPO_ROOT } from '../../support/fixture-project.js'

/** Rewrites the committed references (layout boxes and the README's screenshots) from this run. */
export const UPDATE_ENV = 'AGENT_TAPE_UPDATE_VIEW_REFERENCE'
const REFERENCE_DIR = join(REPO_ROOT, 'test/view/reference')

export interface Box {
  x: number
  y: number
  width: number
  height: number
}

/** The boxes of a page's main regions, by name; `null` for a region that is not there. */
export type Layout = Record<string, Box | null>

export async function measure(page: Page, regions: Record<string, string>): Promise<Layout> {
  return page.evaluate((selectors: Record<string, string>) => {
    const layout: Record<string, Box | null> = {}
    for (const [name, selector] of Object.entries(selectors)) {
      const node = document.querySelector(selector)
      const r = node?.getBoundingClientRect()
      layout[name] = r
        ? {
            x: Math.round(r.x + window.scrollX),
            y: Math.round(r.y + window.scrollY),
            width: Math.round(r.width),
            height: Math.round(r.height),
          }
        : null
    }
    return layout
  }, regions)
}

/**
 * Where a layout differs from its reference by more than a loose tolerance: 32 px plus 10% of
 * the reference's size, so that a font's metrics do not fail the test but a region that moved,
 * vanished or collapsed does.
 */
export function layoutDifferences(actual: Layout, expected: Layout): string[] {
  const problems: string[] = []
  for (const [name, want] of Object.entries(expected)) {
    const got = actual[name]
    if (!want || !got) {
      if (want !== got) problems.push(`${name}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`)
      continue
    }
    for (const key of ['x', 'y', 'width', 'height'] as const) {
      const size = key === 'x' || key === 'width' ? want.width : want.height
      const allowed = 32 + 0.1 * size
      if (Math.abs(got[key] - want[key]) > allowed) {
        problems.push(`${name}.${key}: ${got[key]}, expected ${want[key]} ± ${Math.round(allowed)}`)
      }
    }
  }
  return problems
}

/** The committed reference layout of a page, or this one written as the reference when updating. */
export function referenceLayout(name: string, actual: Layout): Layout {
  const file = join(REFERENCE_DIR, `${name}.json`)
  if (process.env[UPDATE_ENV] === '1') {
    mkdirSync(REFERENCE_DIR, { recursive: true })
    writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`)
  }
  if (!existsSync(file)) {
    throw new Error(
      `No reference layout ${file}: run the browser tests once with ${UPDATE_ENV}=1 and commit it.`,
    )
  }
  return JSON.parse(readFileSync(file, 'utf8')) as Layout
}

/**
 * How far two screenshots are apart, coarsely: both are scaled down to 48 × 36 pixels (in the
 * browser, which decodes them) and the mean difference of their channels is returned, 0 to 255.
 * Text that moves by a few pixels barely counts; a theme, a region or a column that changed does.
 */
export async function imageDistance(browser: Browser, a: Buffer, b: Buffer): Promise<number> {
  const page = await browser.newPage()
  try {
    return await page.evaluate(
      async (x: string, y: string) => {
        const pixels = async (src: string) => {
          const image = new Image()
          image.src = src
          await image.decode()
          const canvas = document.createElement('canvas')
          canvas.width = 48
          canvas.height = 36
          const context = canvas.getContext('2d')!
          context.drawImage(image, 0, 0, 48, 36)
          return context.getImageData(0, 0, 48, 36).data
        }
        const [p, q] = await Promise.all([pixels(x), pixels(y)])
        let sum = 0
        for (let i = 0; i < p.length; i++) if (i % 4 !== 3) sum += Math.abs(p[i]! - q[i]!)
        return sum / ((p.length / 4) * 3)
      },
      `data:image/png;base64,${a.toString('base64')}`,
      `data:image/png;base64,${b.toString('base64')}`,
    )
  } finally {
    await page.close()
  }
}

/**
 * The committed screenshot `docs/<name>.png` (shown in the README), or this one when updating.
 * The committed files are made smaller with `pngquant --quality=70-90`; the coarse comparison
 * does not see the difference.
 */
export function referenceScreenshot(name: string, actual: Buffer): Buffer {
  const file = join(REPO_ROOT, 'docs', `${name}.png`)
  if (process.env[UPDATE_ENV] === '1') {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, actual)
  }
  if (!existsSync(file)) {
    throw new Error(
      `No reference screenshot ${file}: run the browser tests once with ${UPDATE_ENV}=1 and commit it.`,
    )
  }
  return readFileSync(file)
}
