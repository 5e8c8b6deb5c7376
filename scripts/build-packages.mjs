#!/usr/bin/env node
// Builds every package of the workspace in dependency order (`pnpm build`): ESM and CJS bundles
// and their declarations (build-package.mjs), the Vitest package as ESM only, the CLI's bin made
// executable.
// Each package also gets the repository's LICENSE, which npm packs beside its README.
// A package whose inputs (its sources and manifests, the build scripts, the lockfile and the
// packages it depends on) are those of its last build is not built again (`--force` builds
// all): the demo and the bench build first, and most of their runs change nothing.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { buildViewPage } from './build-view-page.mjs'

const root = new URL('..', import.meta.url).pathname
const GROUPS = [
  ['core'],
  ['http', 'fake-provider'],
  ['inspect', 'capture'],
  ['runner-kit'],
  ['vitest', 'jest', 'cli'],
]

function run(cwd, command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: 'inherit' })
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} failed in ${cwd} (exit ${code})`)),
    )
  })
}

async function build(name) {
  const dir = join(root, 'packages', name)
  // The HTML view's page script and style are bundled into the package's sources first.
  if (name === 'inspect') buildViewPage()
  // Vitest loads ESM only: its package ships no CommonJS build.
  const args = name === 'vitest' ? ['--esm-only'] : []
  await run(dir, process.execPath, [join(root, 'scripts', 'build-package.mjs'), ...args])
  if (name === 'cli') {
    // tsc keeps the `#!/usr/bin/env node` line of the bin, but not its file mode.
    for (const file of ['dist/esm/bin.js', 'dist/cjs/bin.js']) {
      if (!readFileSync(join(dir, file), 'utf8').startsWith('#!/usr/bin/env node\n')) {
        throw new Error(`${file} of the CLI does not start with #!/usr/bin/env node`)
      }
      chmodSync(join(dir, file), 0o755)
    }
  }
  copyFileSync(join(root, 'LICENSE'), join(dir, 'LICENSE'))
}

const STAMPS = join(root, 'node_modules', '.cache', 'agent-tape-build')
const SHARED = [
  'scripts/build-packages.mjs',
  'scripts/build-package.mjs',
  'scripts/build-view-page.mjs',
  'tsconfig.base.json',
  'pnpm-lock.yaml',
  'LICENSE',
]
const force = process.argv.includes('--force')
const hashes = new Map()

/** What a build of `name` reads, as one hash; the hashes of the workspace packages it depends on included. */
function inputsOf(name) {
  const dir = join(root, 'packages', name)
  const hash = createHash('sha256')
  const add = (label, path) => hash.update(`${label}\0`).update(readFileSync(path)).update('\0')
  for (const file of SHARED) add(file, join(root, file))
  for (const file of readdirSync(dir))
    if (/^(package|tsconfig.*)\.json$/.test(file)) add(file, join(dir, file))
  for (const file of readdirSync(join(dir, 'src'), { recursive: true }).map(String).sort()) {
    // What the build writes into the sources (`*.generated.ts`) is not one of its inputs.
    if (/\.(ts|mts|cts|js|mjs|cjs|json|css)$/.test(file) && !file.endsWith('.generated.ts'))
      add(`src/${file}`, join(dir, 'src', file))
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).sort()) {
    const folder = dep.startsWith('@agent-tape/') ? dep.slice('@agent-tape/'.length) : undefined
    if (folder && hashes.has(folder)) hash.update(`${dep}\0${hashes.get(folder)}\0`)
  }
  return hash.digest('hex')
}

async function buildIfChanged(name) {
  const inputs = inputsOf(name)
  hashes.set(name, inputs)
  const stamp = join(STAMPS, `${name}.sha256`)
  const built = existsSync(join(root, 'packages', name, 'dist')) && existsSync(stamp)
  if (!force && built && readFileSync(stamp, 'utf8') === inputs) return false
  rmSync(stamp, { force: true })
  await build(name)
  mkdirSync(STAMPS, { recursive: true })
  writeFileSync(stamp, inputs)
  return true
}

const skipped = []
for (const group of GROUPS) {
  // A checkout holds every package; a partial copy (the build's own test) builds the ones it has.
  const present = group.filter((name) => existsSync(join(root, 'packages', name)))
  const results = await Promise.all(present.map(async (name) => [name, await buildIfChanged(name)]))
  for (const [name, rebuilt] of results) if (!rebuilt) skipped.push(name)
}
if (skipped.length > 0) {
  console.log(`Up to date, not rebuilt: ${skipped.join(', ')} (--force rebuilds them)`)
}
