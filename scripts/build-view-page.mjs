#!/usr/bin/env node
// Bundles the HTML view's page script and style sheet into @agent-tape/inspect (run by
// build-packages.mjs before the package's own build, and by typecheck-packages.mjs): the script,
// typed against the DOM and the page's data (packages/inspect/tsconfig.page.json), is compiled
// by tsc to ES2017 and wrapped in one function; both are written as strings to
// src/view/page/page-assets.generated.ts (not committed), which the package's build compiles
// with the rest. TypeScript 7 has no compiler API, hence tsc's output read back from a folder.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const dir = join(root, 'packages', 'inspect')
export const PAGE_ASSETS = join(dir, 'src', 'view', 'page', 'page-assets.generated.ts')

/** Compiles the page script and writes the assets module; throws with tsc's output when it fails. */
export function buildViewPage() {
  const out = mkdtempSync(join(tmpdir(), 'agent-tape-page-'))
  try {
    const tsc = join(dir, 'node_modules', '.bin', 'tsc')
    const result = spawnSync(tsc, ['-p', 'tsconfig.page.json', '--noEmit', 'false', '--outDir', out], {
      cwd: dir,
      encoding: 'utf8',
    })
    if (result.status !== 0) {
      throw new Error(`the view's page script does not compile:\n${result.stdout}${result.stderr}`)
    }
    const compiled = readFileSync(join(out, 'view', 'page', 'page-script.js'), 'utf8')
    // The script imports types only: what is left of its module syntax is an empty export.
    const body = compiled.replace(/^export \{\};\n?/m, '').trimEnd()
    if (/^\s*(import|export)\b/m.test(body)) {
      throw new Error("the view's page script must import types only: the page loads no other script")
    }
    const script = `(function () {\n'use strict'\n${body}\n})()\n`
    const style = readFileSync(join(dir, 'src', 'view', 'page', 'page-style.css'), 'utf8')
    const text = [
      '// Written by scripts/build-view-page.mjs from page-script.ts and page-style.css: edit those.',
      '',
      "/** The page's script, compiled to ES2017 (its hash is in the page's CSP). */",
      `export const PAGE_SCRIPT: string = ${JSON.stringify(script)}`,
      '',
      "/** The page's style sheet (its hash is in the page's CSP). */",
      `export const PAGE_STYLE: string = ${JSON.stringify(style)}`,
      '',
    ].join('\n')
    // Written only when it changed, so that the build's inputs stay those of the last build.
    let before
    try {
      before = readFileSync(PAGE_ASSETS, 'utf8')
    } catch {}
    if (before !== text) writeFileSync(PAGE_ASSETS, text)
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) buildViewPage()
