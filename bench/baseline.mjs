#!/usr/bin/env node
// Builds @agent-tape/core and @agent-tape/http as of a git revision into .tmp/baseline, so that
// `node run.mjs --baseline .tmp/baseline` measures that version next to the current one in the
// same process. Usage: node baseline.mjs <git-ref>
import { execFileSync } from 'node:child_process'
import { cpSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const ref = process.argv[2]
if (!ref) throw new Error('usage: node baseline.mjs <git-ref>')
const repo = new URL('..', import.meta.url).pathname
const out = new URL('.tmp/baseline/', import.meta.url).pathname
const tree = new URL('.tmp/baseline-src/', import.meta.url).pathname
rmSync(out, { recursive: true, force: true })
rmSync(tree, { recursive: true, force: true })
execFileSync('git', ['-C', repo, 'worktree', 'add', '--detach', tree, ref], { stdio: 'inherit' })
try {
  for (const name of ['core', 'http']) {
    const pkg = join(tree, 'packages', name)
    symlinkSync(join(repo, 'packages', name, 'node_modules'), join(pkg, 'node_modules'))
    execFileSync(process.execPath, [join(repo, 'scripts', 'build-package.mjs')], {
      cwd: pkg,
      stdio: 'inherit',
    })
    cpSync(join(pkg, 'dist', 'esm'), join(out, name), { recursive: true })
  }
} finally {
  execFileSync('git', ['-C', repo, 'worktree', 'remove', '--force', tree], { stdio: 'inherit' })
}
// The baseline http must use the baseline core, not the workspace one.
const coreEntry = join(out, 'core', 'index.js')
for (const file of walk(join(out, 'http'))) {
  if (!file.endsWith('.js')) continue
  const text = readFileSync(file, 'utf8')
  const target = relative(join(file, '..'), coreEntry)
  writeFileSync(file, text.replaceAll("'@agent-tape/core'", `'./${target}'`.replace('./../', '../')))
}
writeFileSync(
  join(out, 'REVISION'),
  `${execFileSync('git', ['-C', repo, 'rev-parse', ref]).toString().trim()}\n`,
)
console.log(`baseline ${ref} built in ${out}`)

function* walk(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) yield* walk(path)
    else yield path
  }
}
