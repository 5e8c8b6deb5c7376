/**
 * Scenario 12: what a page of `agent-tape view` costs to open in headless Chromium, its first
 * contentful paint and the longest task on its main thread, against the targets the page is built
 * to (test/view/support/metrics.ts). The pages are those test/view/view-metrics.test.ts checks for
 * what they hold; how fast they paint moves with the machine's load, so it is measured here and
 * asserted by no test. Each page is opened in a fresh tab `tries` times in each window: the best
 * try is held to the targets (load only ever adds to a timing), the median is shown beside it. A
 * quick run makes two of the pages, the 601-decision divergence and the README's, and tries twice.
 * The pages are made by the test's own helpers in a child process: they are TypeScript, run by tsx,
 * and recording installs an HTTP boundary in the process, which the other scenarios must not meet.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { median } from '../lib/stats.mjs'

const CHILD = new URL('../lib/view-paint-child.mjs', import.meta.url).pathname
const REPO_ROOT = new URL('../..', import.meta.url).pathname

export async function viewPaint({ dir, config }) {
  const work = join(dir, 'view')
  mkdirSync(work)
  const out = join(work, 'paint.json')
  const tries = config.quick ? 2 : 8
  const loadAverage = [loadavg()[0]]
  // The child's output is progress: onto stderr, with the bench's own, off the tables on stdout.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, work, out, String(tries), config.quick ? 'quick' : 'full'],
    { cwd: REPO_ROOT, stdio: ['ignore', 2, 2] },
  )
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', resolve)
  })
  if (code !== 0) throw new Error(`the view scenario's child exited with ${code}`)
  loadAverage.push(loadavg()[0])
  const { targets, pages } = JSON.parse(readFileSync(out, 'utf8'))
  const middle = (opened, pick) => median(opened.map(pick).filter((v) => v !== undefined))
  return {
    tries,
    targets,
    loadAverage,
    pages: pages.map(({ tries: opened, ...page }) => ({
      ...page,
      medianFirstPaintMs: middle(opened, (t) => t.firstContentfulPaintMs),
      medianLongestTaskMs: middle(opened, (t) => t.longestTaskMs),
    })),
  }
}
