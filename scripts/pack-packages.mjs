#!/usr/bin/env node
// Packs the published packages into `packed/` (`pnpm run pack`), as npm would publish them:
// pnpm turns `workspace:` and `catalog:` versions into plain versions. Until the packages are on
// the npm registry, a project installs these tarballs; the printed lines say how.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const out = join(root, 'packed')
// Each runner needs core, http and the runner kit beside it: installed together, npm takes them
// from the tarballs.
const PACKAGES = {
  core: [],
  http: [],
  'runner-kit': [],
  vitest: ['core', 'http', 'runner-kit', 'cli'],
  jest: ['core', 'http', 'runner-kit', 'cli'],
  cli: ['core', 'http', 'runner-kit'],
  capture: ['core', 'http'],
}

rmSync(out, { recursive: true, force: true })
mkdirSync(out)
const tarballs = {}
for (const folder of Object.keys(PACKAGES)) {
  const before = new Set(readdirSync(out))
  execFileSync('npx', ['-y', 'pnpm@12.4.2', 'pack', '--pack-destination', out], {
    cwd: join(root, 'packages', folder),
    stdio: 'pipe',
  })
  tarballs[folder] = join(
    out,
    readdirSync(out).find((f) => !before.has(f)),
  )
}

console.log(`Packed into ${out}. In your project, install what you use:\n`)
for (const [folder, needs] of Object.entries(PACKAGES)) {
  if (needs.length === 0) continue
  const files = [...needs, folder].map((f) => tarballs[f])
  console.log(`  ${folder.padEnd(7)} npm install -D ${files.join(' ')}`)
}
