#!/usr/bin/env node
// Type-checks every package's sources, tests included (`pnpm typecheck`), two at a time.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildViewPage } from './build-view-page.mjs'

const root = new URL('..', import.meta.url).pathname
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const queue = readdirSync(join(root, 'packages')).flatMap((name) =>
  // A package's sources that run elsewhere have a project of their own (the view's page script).
  ['tsconfig.json', 'tsconfig.page.json']
    .map((file) => join('packages', name, file))
    .filter((file) => existsSync(join(root, file))),
)
// The inspect package's sources import what build-view-page.mjs bundles; a fresh checkout has none
// yet. A page script that does not compile is reported by its own project below.
try {
  buildViewPage()
} catch {}
let failed = false

async function worker() {
  for (let project = queue.shift(); project; project = queue.shift()) {
    const code = await new Promise((resolve) => {
      spawn(tsc, ['-p', project, '--noEmit'], { cwd: root, stdio: 'inherit' }).on('exit', resolve)
    })
    if (code !== 0) {
      console.error(`typecheck: ${project} has type errors`)
      failed = true
    }
  }
}

await Promise.all([worker(), worker()])
process.exit(failed ? 1 : 0)
