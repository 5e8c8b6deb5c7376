/**
 * The view scenario's child (scenarios/view-paint.mjs), run with `node --import tsx`: it makes the
 * pages test/view/view-metrics.test.ts checks, with that test's own helpers, opens each in headless
 * Chromium `tries` times in each window, and writes what they cost to open to `out`.
 *
 *   node --import tsx view-paint-child.mjs <work dir> <out.json> <tries> <quick|full>
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCli } from '../../test/cli/support/cli.ts'
import { launchChromium } from '../../test/view/support/chromium.ts'
import { recordLongDivergence } from '../../test/view/support/long-divergence.ts'
import { bestOfTries, describeMetrics, TARGETS, VIEWPORTS } from '../../test/view/support/metrics.ts'
import { divergeSupportAgent, FILLER, SUPPORT_CASSETTE } from '../../test/view/support/pages.ts'

const [work, out, tries, size] = process.argv.slice(2)
const log = (text) => process.stderr.write(`   ${text}\n`)

/** `agent-tape view <args> -o <work>/<name>.html`, as a user runs it. */
async function view(name, args, cwd) {
  const file = join(work, `${name}.html`)
  const result = await runCli(['view', ...args, '-o', file], cwd)
  if (result.code !== 0) throw new Error(`agent-tape view ${args.join(' ')} failed:\n${result.stderr}`)
  return { name, file }
}

/** A recorded tool loop of `steps` requests and its run that diverged half-way, in a folder of its own. */
async function longRun(name, steps, options) {
  const root = join(work, name)
  mkdirSync(root)
  return { root, ...(await recordLongDivergence(root, steps, options)) }
}

const pages = []
const d601 = await longRun('long-601', 301, { record: FILLER })
pages.push(await view('divergence-601', [d601.cassette, '--run', d601.run], d601.root))
if (size === 'full') {
  const heavy = await longRun('long-601-heavy', 301)
  pages.push(await view('divergence-601-heavy', [heavy.cassette, '--run', heavy.run], heavy.root))
  const d1001 = await longRun('long-1001', 501)
  pages.push(await view('recording-1001', [d1001.cassette], d1001.root))
  pages.push(await view('divergence-1001', [d1001.cassette, '--run', d1001.run], d1001.root))
}
const support = join(work, 'support-agent')
mkdirSync(support)
const { run } = await divergeSupportAgent(support)
pages.push(await view('divergence-support-agent', [SUPPORT_CASSETTE, '--run', run], support))

const browser = await launchChromium()
// tsx compiles the helpers keeping function names (esbuild's keepNames): a function they hand to
// the page calls `__name`, which the page must then define, from before its first script.
const newPage = browser.newPage.bind(browser)
browser.newPage = async (...args) => {
  const page = await newPage(...args)
  await page.evaluateOnNewDocument('globalThis.__name = (fn) => fn')
  return page
}
const measured = []
try {
  for (const { name, file } of pages) {
    for (const viewport of Object.values(VIEWPORTS)) {
      // Every try, not only until one meets the targets: the median is part of the result.
      const m = await bestOfTries(browser, file, viewport, () => false, Number(tries))
      const label = `${viewport.width}×${viewport.height}`
      log(describeMetrics(`${name} at ${label}`, m))
      measured.push({
        page: name,
        viewport: label,
        bytes: m.bytes,
        elements: m.elements,
        firstContentfulPaintMs: m.firstContentfulPaintMs,
        longestTaskMs: m.longestTaskMs,
        tries: m.tries.map((t) => ({
          firstContentfulPaintMs: t.firstContentfulPaintMs,
          longestTaskMs: t.longestTaskMs,
        })),
      })
    }
  }
} finally {
  await browser.close()
}
const targets = { maxFirstPaintMs: TARGETS.maxFirstPaintMs, maxLongTaskMs: TARGETS.maxLongTaskMs }
writeFileSync(out, JSON.stringify({ targets, pages: measured }))
