#!/usr/bin/env node
// Builds @agent-tape/core and @agent-tape/http as of a git revision into .tmp/baseline, so that
// `node run.mjs --baseline .tmp/baseline` measures that version next to the current one in the
// same process. Usage: node baseline.mjs <git-ref>
import { execFileSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
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
    linkDependencies(join(repo, 'packages', name, 'node_modules'), join(pkg, 'node_modules'), tree)
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
for (const file of walk(join(out, 'http'))) {
  if (!file.endsWith('.js')) continue
  const entry = (name) => `'./${relative(join(file, '..'), join(out, 'core', name))}'`.replace('./../', '../')
  const text = readFileSync(file, 'utf8')
  writeFileSync(
    file,
    text
      .replaceAll("'@agent-tape/core/internal'", entry('internal.js'))
      .replaceAll("'@agent-tape/core/context'", entry('context.js'))
      .replaceAll("'@agent-tape/core'", entry('index.js')),
  )
}
// Each package's own dependencies (core's text diff, http's interceptors), beside its build.
for (const name of ['core', 'http']) {
  const from = join(repo, 'packages', name, 'node_modules')
  mkdirSync(join(out, name, 'node_modules'), { recursive: true })
  for (const entry of readdirSync(from)) {
    if (entry !== '@agent-tape') symlinkSync(join(from, entry), join(out, name, 'node_modules', entry))
  }
}
writeFileSync(
  join(out, 'REVISION'),
  `${execFileSync('git', ['-C', repo, 'rev-parse', ref]).toString().trim()}\n`,
)
console.log(`baseline ${ref} built in ${out}`)

/**
 * The workspace package's dependencies for the baseline package, except agent-tape's own,
 * which resolve to the baseline's: its http is built against its core, whatever the workspace's is.
 */
function linkDependencies(from, to, baselineTree) {
  mkdirSync(to, { recursive: true })
  for (const entry of readdirSync(from)) {
    if (entry !== '@agent-tape') {
      symlinkSync(join(from, entry), join(to, entry))
      continue
    }
    mkdirSync(join(to, entry))
    for (const name of readdirSync(join(from, entry))) {
      const own = join(baselineTree, 'packages', name)
      symlinkSync(existsSync(own) ? own : join(from, entry, name), join(to, entry, name))
    }
  }
}

function* walk(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) yield* walk(path)
    else yield path
  }
}
