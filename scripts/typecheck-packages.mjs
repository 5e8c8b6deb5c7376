#!/usr/bin/env node
// Type-checks every package's sources, tests included (`pnpm typecheck`), two at a time.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const queue = readdirSync(join(root, 'packages')).map((name) => join('packages', name, 'tsconfig.json'))
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
