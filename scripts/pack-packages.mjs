#!/usr/bin/env node
// Packs the published packages into `packed/` (`pnpm run pack`), as npm would publish them:
// pnpm turns `workspace:` and `catalog:` versions into plain versions. Until the packages are on
// the npm registry, a project vendors these tarballs (so that `npm ci` works in its CI) and
// installs them from there; the printed lines, the README's, say how.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const out = join(root, 'packed')
// Each runner needs core, http, inspect, the runner kit and the CLI beside it: installed
// together, npm takes them from the tarballs.
const PACKAGES = {
  core: [],
  http: [],
  inspect: [],
  'runner-kit': [],
  vitest: ['core', 'http', 'inspect', 'runner-kit', 'cli'],
  jest: ['core', 'http', 'inspect', 'runner-kit', 'cli'],
  cli: ['core', 'http', 'inspect', 'runner-kit'],
  capture: ['core', 'http'],
}
// Capture runs in a server, in production: a dependency of the app, not a dev dependency.
const DEPENDENCIES = new Set(['capture'])

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

const vendor = 'vendor/agent-tape'
console.log(`Packed into ${out}. In your project, vendor them and install what you use:\n`)
console.log(`  mkdir -p ${vendor} && cp "${out}"/*.tgz ${vendor}/`)
for (const [folder, needs] of Object.entries(PACKAGES)) {
  if (needs.length === 0) continue
  const files = [...needs, folder].map((f) => `./${vendor}/${basename(tarballs[f])}`)
  console.log(`  npm install${DEPENDENCIES.has(folder) ? '' : ' -D'} ${files.join(' ')}    # ${folder}`)
}
console.log(`\nCommit ${vendor}/ with the lockfile: npm ci installs from there in CI.`)
