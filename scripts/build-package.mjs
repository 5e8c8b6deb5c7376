#!/usr/bin/env node
// Builds the package in the current directory to dist/esm (nodenext) and dist/cjs (commonjs)
// with plain tsc: TypeScript 7 has no compiler API, so bundlers that need one cannot emit
// declarations here. Test files are excluded from both outputs.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const cwd = process.cwd()
const tsc = join(cwd, 'node_modules', '.bin', 'tsc')
// A package's own excludes too: sources that are not Node's (the view's page script, bundled
// into the page by build-view-page.mjs).
const own = JSON.parse(readFileSync(join(cwd, 'tsconfig.json'), 'utf8')).exclude ?? []
const exclude = ['src/**/*.test.ts', 'src/**/*.test-d.ts', ...own]

function run(label, args) {
  const result = spawnSync(tsc, args, { cwd, stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`build-package: ${label} build failed in ${cwd}`)
    process.exit(result.status ?? 1)
  }
}

rmSync(join(cwd, 'dist'), { recursive: true, force: true })
const tmp = join(cwd, 'dist', '.tsconfig')
mkdirSync(tmp, { recursive: true })
const variants = {
  esm: { module: 'nodenext', moduleResolution: 'nodenext', type: 'module' },
  cjs: { module: 'commonjs', moduleResolution: 'bundler', type: 'commonjs' },
}
for (const [name, v] of Object.entries(variants)) {
  const file = join(tmp, `${name}.json`)
  writeFileSync(
    file,
    JSON.stringify({
      extends: '../../tsconfig.json',
      compilerOptions: {
        rootDir: '../../src',
        outDir: `../${name}`,
        module: v.module,
        moduleResolution: v.moduleResolution,
        noEmit: false,
      },
      include: ['../../src'],
      exclude: exclude.map((p) => `../../${p}`),
    }),
  )
  run(name, ['-p', file])
  writeFileSync(join(cwd, 'dist', name, 'package.json'), `${JSON.stringify({ type: v.type })}\n`)
}
rmSync(tmp, { recursive: true, force: true })
