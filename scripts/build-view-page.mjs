#!/usr/bin/env node
// Bundles the HTML view's page script and style sheet into @agent-tape/inspect (run by
// build-packages.mjs before the package's own build, and by typecheck-packages.mjs): the script's
// modules (src/view/page/script/, typed against the DOM and the page's data by
// packages/inspect/tsconfig.page.json) are compiled by tsc to ES2017, put in the order their
// imports ask (each after what it imports), their import and export syntax removed, and wrapped
// in one function; script and style sheet are written as strings to
// src/view/page/page-assets.generated.ts (not committed), which the package's build compiles
// with the rest. TypeScript 7 has no compiler API, hence tsc's output read back from a folder.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Script } from 'node:vm'

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
    const script = `(function () {\n'use strict'\n${joinModules(join(out, 'view', 'page', 'script'), 'main.js')}\n})()\n`
    // Two modules that declare the same name would share one scope here: the page would not run.
    try {
      new Script(script, { filename: 'page-script.js' })
    } catch (error) {
      throw new Error(`the view's page script does not parse once its modules are joined: ${error.message}`)
    }
    const style = readFileSync(join(dir, 'src', 'view', 'page', 'page-style.css'), 'utf8')
    const text = [
      '// Written by scripts/build-view-page.mjs from script/*.ts and page-style.css: edit those.',
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

/**
 * The modules of `dir`, from `entry` down its imports, each once and after what it imports, as
 * one script: `import … from './x.js'` lines dropped, `export` taken off declarations. Only
 * relative imports of the folder's own modules are allowed (the page loads nothing else).
 */
function joinModules(dir, entry) {
  const done = new Set()
  const parts = []
  // Two modules that declare one name share a scope once joined: a second function would
  // silently replace the first, so every top-level name must be one module's.
  const declared = new Map()
  const visit = (name, path) => {
    if (done.has(name)) return
    if (path.includes(name))
      throw new Error(`the view's page script imports in a circle: ${[...path, name].join(' → ')}`)
    const code = readFileSync(join(dir, name), 'utf8')
    const imports = [...code.matchAll(/^import\s[^;]*?from\s+'([^']+)';?$/gms)]
    for (const [, from] of imports) {
      if (!/^\.\/[\w-]+\.js$/.test(from)) {
        throw new Error(`the view's page script imports ${from}: the page loads no other script`)
      }
      visit(from.slice(2), [...path, name])
    }
    done.add(name)
    const body = code
      .replace(/^import\s[^;]*?from\s+'[^']+';?\n?/gms, '')
      .replace(/^export \{\};?\n?/m, '')
      .replace(/^export (?=(async )?function |const |let |class )/gm, '')
      .trimEnd()
    if (/^\s*(import|export)\b/m.test(body)) {
      throw new Error(
        `the view's page script module ${name} has import or export syntax the join cannot remove`,
      )
    }
    for (const [, declaration] of body.matchAll(/^(?:async function|function|const|let|class) ([\w$]+)/gm)) {
      const other = declared.get(declaration)
      if (other)
        throw new Error(`the view's page script declares ${declaration} in both ${other} and ${name}`)
      declared.set(declaration, name)
    }
    parts.push(`// ${name}\n${body}`)
  }
  visit(entry, [])
  return parts.join('\n\n')
}

if (import.meta.url === `file://${process.argv[1]}`) buildViewPage()
