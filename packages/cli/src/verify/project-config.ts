import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { ConfigError } from '@agent-tape/core'
import { toPosix } from '@agent-tape/runner-kit'
import { createIgnore } from './ignore.js'

/** The field of `package.json` that holds the CLI's project settings. */
export const CONFIG_FIELD = 'agentTape'

export interface VerifyConfig {
  /** The `package.json` the settings came from; none when no project was found. */
  file?: string
  /** Patterns of `agentTape.verify.ignore`, relative to that file's folder. */
  ignore: string[]
  /** Whether a path (absolute) is ignored by the project's patterns. */
  ignores(path: string): boolean
}

/**
 * The project's `verify` settings, from the nearest `package.json` at or above `cwd`, so that a
 * plain `agent-tape verify` in CI skips what the project decided never to check (fixtures that
 * are damaged on purpose):
 *
 * @example
 * // package.json
 * { "agentTape": { "verify": { "ignore": ["test/fixtures", "packages/*\/test-fixtures"] } } }
 *
 * The patterns are those of `--ignore`, matched against paths relative to that `package.json`'s
 * folder wherever verify runs from. A field of the wrong shape is an error, never skipped:
 * a typo would silently check (or skip) the wrong cassettes.
 */
export function readVerifyConfig(cwd: string): VerifyConfig {
  const file = nearestPackageJson(cwd)
  if (!file) return { ignore: [], ignores: () => false }
  let manifest: unknown
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw invalid(file, `it is not valid JSON (${(error as Error).message})`, 'Fix the file')
  }
  const settings = (manifest as Record<string, unknown> | null)?.[CONFIG_FIELD]
  if (settings === undefined) return { file, ignore: [], ignores: () => false }
  if (!isObject(settings)) throw invalid(file, `"${CONFIG_FIELD}" must be an object, got ${kind(settings)}`)
  const verify = settings.verify
  if (verify === undefined) return { file, ignore: [], ignores: () => false }
  if (!isObject(verify))
    throw invalid(file, `"${CONFIG_FIELD}.verify" must be an object, got ${kind(verify)}`)
  const unknown = Object.keys(verify).filter((k) => k !== 'ignore')
  if (unknown.length > 0) {
    throw invalid(
      file,
      `"${CONFIG_FIELD}.verify" has an unknown setting "${unknown[0]}"; the only one is "ignore"`,
    )
  }
  const ignore = verify.ignore ?? []
  if (!Array.isArray(ignore) || !ignore.every((p) => typeof p === 'string' && p.length > 0)) {
    throw invalid(
      file,
      `"${CONFIG_FIELD}.verify.ignore" must be a list of path patterns, got ${JSON.stringify(ignore)}`,
    )
  }
  const root = dirname(file)
  const matches = createIgnore(ignore)
  return {
    file,
    ignore,
    ignores: (path) => {
      const rel = relative(root, path)
      return !rel.startsWith('..') && matches(toPosix(rel))
    },
  }
}

function nearestPackageJson(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) return file
    if (dirname(dir) === dir) return undefined
  }
}

function invalid(file: string, why: string, fix?: string): ConfigError {
  return new ConfigError({
    what: `Invalid agent-tape settings in ${file}`,
    why,
    fix:
      fix ??
      `Write them as "${CONFIG_FIELD}": { "verify": { "ignore": ["test/fixtures"] } } (patterns as --ignore takes them, relative to that file's folder)`,
  })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function kind(value: unknown): string {
  return Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value
}
