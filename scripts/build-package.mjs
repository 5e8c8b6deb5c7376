#!/usr/bin/env node
// Builds the package in the current directory: its entries bundled by rolldown into dist/esm and
// dist/cjs (a few files each, decision 0035: a module costs a test process far more to load than
// its code does), and its type declarations by plain tsc, one per source file beside them
// (TypeScript 7 has no compiler API, so no bundler emits declarations here). `--esm-only` builds
// ESM into dist/ (the Vitest package: Vitest loads ES modules only). Test files are excluded.
import { spawnSync } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { rolldown } from 'rolldown'

const cwd = process.cwd()
const esmOnly = process.argv.includes('--esm-only')
const tsc = join(cwd, 'node_modules', '.bin', 'tsc')
const manifest = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'))
// A package's own excludes too: sources that are not Node's (the view's page script, bundled
// into the page by build-view-page.mjs).
const own = JSON.parse(readFileSync(join(cwd, 'tsconfig.json'), 'utf8')).exclude ?? []
const exclude = ['src/**/*.test.ts', 'src/**/*.test-d.ts', ...own]

/**
 * Files loaded by their path rather than through the exports map, which must therefore exist in
 * the output as entries of their own, each with who loads it.
 */
const PATH_ENTRIES = {
  // preload.mjs (NODE_OPTIONS=--import), a worker's `--require` (network/worker-guard.ts), and the
  // gateway's process (gateway/gateway-process.ts) and thread (gateway/gateway-thread.ts).
  '@agent-tape/http': [
    'process/process-boundary',
    'network/worker-preload',
    'gateway/main',
    'gateway/worker',
  ],
  // The `agent-tape` bin of the package.json.
  '@agent-tape/cli': ['bin'],
  // bin/agent-tape-jest.cjs.
  '@agent-tape/jest': ['cli'],
}

/**
 * A package's chunks: what some of its entries (or modules) reach, statically and transitively, is a chunk of
 * its own, named here, before what the next group reaches; everything else of the package is one
 * more chunk (`main`). A chunk costs a test process far more to load than the code in it does
 * (decision 0035), so what every test file loads (a runner's setup file, `setup`), what a test's
 * tape loads (`tape`, `costs`) and what a run's end or a command reads are kept apart.
 */
const CHUNKS = {
  '@agent-tape/core': { setup: ['context'] },
  '@agent-tape/http': { setup: ['install/index'] },
  '@agent-tape/inspect': { costs: ['cost/index', 'format/index'] },
  // The matchers' implementations load with the first tape (matcher-link.ts).
  '@agent-tape/runner-kit': { setup: ['setup/index'], tape: ['tape/index', 'tape-matchers'] },
  '@agent-tape/jest': { setup: ['setup'] },
}

/**
 * Chunks of what only some entries reach: the code of another process or thread (the gateway's),
 * kept out of `main` so that a test process never loads it. A module that these entries reach,
 * and no other entry or lazily loaded module, goes to the chunk named here.
 */
const ONLY_FROM = {
  '@agent-tape/http': { gateway: ['gateway/main', 'gateway/worker'] },
}

function run(label, args) {
  const result = spawnSync(tsc, args, { cwd, stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`build-package: ${label} failed in ${cwd}`)
    process.exit(result.status ?? 1)
  }
}

/** Every entry: what the exports map names, as `<path without .js>` under the output folder. */
function entries() {
  const names = new Set(PATH_ENTRIES[manifest.name] ?? [])
  for (const target of Object.values(manifest.exports ?? {})) {
    const file = typeof target === 'string' ? target : (target.import?.default ?? target.default)
    const match = typeof file === 'string' && /^\.\/dist\/(?:esm\/)?(.+)\.js$/.exec(file)
    if (match) names.add(match[1])
  }
  return Object.fromEntries([...names].map((name) => [name, join(cwd, 'src', `${name}.ts`)]))
}

/** Declarations only, one per source file, in the layout the exports map's `types` name. */
function declarations(outDir) {
  const tmp = join(cwd, 'dist', '.tsconfig')
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, 'declarations.json')
  writeFileSync(
    file,
    JSON.stringify({
      extends: '../../tsconfig.json',
      compilerOptions: {
        rootDir: '../../src',
        outDir: `../../${outDir}`,
        noEmit: false,
        emitDeclarationOnly: true,
      },
      include: ['../../src'],
      exclude: exclude.map((p) => `../../${p}`),
    }),
  )
  run(`declarations (${outDir})`, ['-p', file])
  rmSync(tmp, { recursive: true, force: true })
}

// Everything that is not a file of this package stays an import: other packages (agent-tape's
// own included, each bundled by itself) and Node's modules.
const external = (id) => /^(?![./\0]|[A-Za-z]:)/.test(id)

/**
 * The chunk each module of the package goes to, by {@link CHUNKS}, worked out as the build ends;
 * and the modules more than one entry (or lazily loaded module) reaches, which go to `main` unless
 * planned. A module only one of them reaches stays in that one's file.
 */
function chunkPlan(inputs) {
  const chunkOf = new Map()
  const onlyFrom = new Map()
  const shared = new Set()
  return {
    chunkOf,
    onlyFrom,
    shared,
    plugin: {
      name: 'agent-tape-chunks',
      buildEnd() {
        /** Each module, with the roots (entries and lazily loaded modules) that reach it. */
        const reachedFrom = new Map()
        const roots = [...Object.values(inputs)]
        for (const id of this.getModuleIds())
          for (const next of this.getModuleInfo(id)?.dynamicallyImportedIds ?? [])
            if (!external(next)) roots.push(next)
        for (const root of new Set(roots)) {
          const seen = new Set()
          const queue = [root]
          for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
            if (seen.has(id)) continue
            seen.add(id)
            reachedFrom.set(id, (reachedFrom.get(id) ?? new Set()).add(root))
            queue.push(...(this.getModuleInfo(id)?.importedIds ?? []).filter((next) => !external(next)))
          }
        }
        for (const [id, from] of reachedFrom) if (from.size > 1) shared.add(id)
        for (const [chunk, names] of Object.entries(ONLY_FROM[manifest.name] ?? {})) {
          const only = new Set(names.map((name) => inputs[name]))
          for (const [id, from] of reachedFrom)
            if (from.size > 1 && [...from].every((root) => only.has(root))) onlyFrom.set(id, chunk)
        }
        for (const [chunk, names] of Object.entries(CHUNKS[manifest.name] ?? {})) {
          const queue = names.map((name) => inputs[name] ?? join(cwd, 'src', `${name}.ts`))
          for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
            if (chunkOf.has(id)) continue
            chunkOf.set(id, chunk)
            queue.push(...(this.getModuleInfo(id)?.importedIds ?? []).filter((next) => !external(next)))
          }
        }
      },
    },
  }
}

rmSync(join(cwd, 'dist'), { recursive: true, force: true })
const inputs = entries()
const plan = chunkPlan(inputs)
const entryIds = new Set(Object.values(inputs))
const bundle = await rolldown({
  input: inputs,
  plugins: [plan.plugin],
  platform: 'node',
  external,
  // The sources import each other as `./x.js`, as Node resolves the built files.
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  // An entry exports exactly what its source does: other packages import entries by name.
  preserveEntrySignatures: 'strict',
  logLevel: 'warn',
})
const outputs = esmOnly
  ? [{ dir: 'dist', format: 'esm' }]
  : [
      { dir: 'dist/esm', format: 'esm', type: 'module' },
      { dir: 'dist/cjs', format: 'cjs', type: 'commonjs' },
    ]
for (const { dir, format, type } of outputs) {
  await bundle.write({
    dir: join(cwd, dir),
    format,
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    sourcemap: true,
    // What a process parses when it loads a chunk: the doc comments stay in the sources, the
    // declarations and the source maps, not in the code a test process compiles.
    comments: { legal: true, annotation: true, jsdoc: false },
    codeSplitting: {
      groups: [
        // An entry's own module stays in its file: its top level (a setup file's, a preload's) runs
        // when that entry is loaded, never because another entry shares a chunk with it.
        { debugName: 'planned', name: (id) => (entryIds.has(id) ? null : (plan.chunkOf.get(id) ?? null)) },
        // What only some entries reach (ONLY_FROM), after `main`: a group takes the modules its own
        // import, so what those share with the rest must be in `main` already.
        {
          debugName: 'main',
          name: (id) => (!entryIds.has(id) && plan.shared.has(id) && !plan.onlyFrom.has(id) ? 'main' : null),
        },
        { debugName: 'only-from', name: (id) => (entryIds.has(id) ? null : (plan.onlyFrom.get(id) ?? null)) },
      ],
    },
    // Class and function names as written: errors and reports name them (`constructor.name`).
    keepNames: false,
    // Jest's sandbox runs CommonJS and has no dynamic `import()`: a lazy load is a `require`.
    ...(format === 'cjs' ? { dynamicImportInCjs: false, exports: 'named' } : {}),
  })
  if (type) writeFileSync(join(cwd, dir, 'package.json'), `${JSON.stringify({ type })}\n`)
}
await bundle.close()
if (esmOnly) declarations('dist')
else {
  // The same declarations serve both builds: a declaration file reads the same to either.
  declarations('dist/esm')
  cpSync(join(cwd, 'dist/esm'), join(cwd, 'dist/cjs'), {
    recursive: true,
    filter: (from) =>
      !/\.js(\.map)?$/.test(from) && !from.endsWith('package.json') && !from.includes('/chunks'),
  })
}
// A bin keeps its `#!` line; the file mode is the caller's to set.
for (const bin of Object.values(manifest.bin ?? {})) {
  const file = join(cwd, bin)
  if (bin.startsWith('./dist/') && existsSync(file)) chmodSync(file, 0o755)
}
