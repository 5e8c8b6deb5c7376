import { existsSync, readFileSync } from 'node:fs'
import { dirname, extname, join, relative, resolve } from 'node:path'
import { toPosix } from '@agent-tape/runner-kit'
import { usageError } from '../args.js'
import type { PromoteEntry, PromoteRunner } from './test-code.js'

const COMMAND = 'agent-tape promote'

/**
 * `--entry src/agent.ts#runAgent` (or without `#name`, the default export), checked: the file
 * exists and exports that name, as far as its source says (a module that re-exports everything
 * with `export *` is taken at its word). The specifier is relative to the test file, as the
 * runner resolves it: Vite follows `.js` to a `.ts` source (what `nodenext` wants written),
 * Jest resolves a path without an extension.
 */
export function resolveEntry(
  value: string,
  cwd: string,
  testFile: string,
  runner: PromoteRunner,
): PromoteEntry {
  const hash = value.lastIndexOf('#')
  const path = hash === -1 ? value : value.slice(0, hash)
  const name = hash === -1 ? undefined : value.slice(hash + 1)
  if (path === '' || (name !== undefined && !/^[A-Za-z_$][\w$]*$/.test(name))) {
    throw usageError(
      COMMAND,
      `--entry ${value} is not <file>#<exported function>`,
      'Pass e.g. --entry src/agent.ts#runAgent',
    )
  }
  const file = resolve(cwd, path)
  if (!existsSync(file)) {
    throw usageError(
      COMMAND,
      `--entry names ${path}, which does not exist`,
      'Pass the module that exports the agent, e.g. --entry src/agent.ts#runAgent',
    )
  }
  const source = readFileSync(file, 'utf8')
  if (!exportsName(source, name)) {
    throw usageError(
      COMMAND,
      name === undefined ? `${path} has no default export` : `${path} exports no ${name}`,
      `Name the function the captured run called, as ${path} exports it: --entry ${path}#<name>`,
    )
  }
  let specifier = toPosix(relative(dirname(testFile), file))
  if (!specifier.startsWith('.')) specifier = `./${specifier}`
  return { specifier: withExtension(specifier, runner), export: name }
}

function withExtension(specifier: string, runner: PromoteRunner): string {
  const ext = extname(specifier)
  const base = specifier.slice(0, specifier.length - ext.length)
  if (runner === 'jest') return ['.ts', '.tsx', '.js', '.jsx'].includes(ext) ? base : specifier
  const js: Record<string, string> = { '.ts': '.js', '.tsx': '.js', '.mts': '.mjs', '.cts': '.cjs' }
  return js[ext] ? `${base}${js[ext]}` : specifier
}

/** Whether the module's source exports `name` (`undefined`: a default export). */
function exportsName(source: string, name: string | undefined): boolean {
  if (/^\s*export\s*\*\s*from\s/m.test(source)) return true
  if (name === undefined) return /\bexport\s+default\b|\bexport\s*\{[^}]*\bas\s+default\b/.test(source)
  const declared = new RegExp(
    `\\bexport\\s+(?:declare\\s+)?(?:async\\s+)?(?:function\\*?|const|let|var|class)\\s+${name}\\b`,
  )
  if (declared.test(source)) return true
  for (const match of source.matchAll(/\bexport\s*\{([^}]*)\}/g)) {
    for (const part of match[1]!.split(',')) {
      const [local, alias] = part.trim().split(/\s+as\s+/)
      if ((alias ?? local)?.trim() === name) return true
    }
  }
  // CommonJS: exports.runAgent = … or module.exports = { runAgent }
  return new RegExp(
    `\\b(?:module\\.)?exports\\.${name}\\s*=|module\\.exports\\s*=\\s*\\{[^}]*\\b${name}\\b`,
  ).test(source)
}

/**
 * The runner of the project that holds the test: `--runner`, else the one its config file or
 * its dependencies name. Neither, or both: the user says which.
 */
export function detectRunner(root: string, option: unknown): PromoteRunner {
  if (option !== undefined) {
    if (option === 'vitest' || option === 'jest') return option
    throw usageError(COMMAND, `--runner ${String(option)} is not vitest or jest`)
  }
  const found = new Set<PromoteRunner>()
  for (const ext of ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs']) {
    if (existsSync(join(root, `vitest.config.${ext}`))) found.add('vitest')
    if (existsSync(join(root, `jest.config.${ext}`))) found.add('jest')
  }
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>
    const deps = { ...(pkg.dependencies as object), ...(pkg.devDependencies as object) }
    if ('@agent-tape/vitest' in deps) found.add('vitest')
    if ('@agent-tape/jest' in deps || 'jest' in pkg) found.add('jest')
  } catch {
    // No package.json, or not JSON: the config files decide.
  }
  if (found.size === 1) return [...found][0]!
  throw usageError(
    COMMAND,
    found.size === 0
      ? `cannot tell which test runner ${root} uses (no vitest.config or jest.config, no @agent-tape/vitest or @agent-tape/jest)`
      : `${root} has both a Vitest and a Jest setup`,
    'Pass --runner vitest or --runner jest',
  )
}
