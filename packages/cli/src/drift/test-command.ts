import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RunnerName } from '@agent-tape/runner-kit'
import { usageError } from '../args.js'

const CONFIGS: Record<RunnerName, readonly string[]> = {
  vitest: ['vitest.config', 'vitest.workspace', 'vite.config'].flatMap((name) =>
    ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].map((ext) => `${name}.${ext}`),
  ),
  jest: ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs', 'json'].map((ext) => `jest.config.${ext}`),
}

/** The project's test runner: by its config file, else by `package.json` (a `jest` key, its dependencies). */
export function detectRunner(root: string): RunnerName | undefined {
  const found = (Object.keys(CONFIGS) as RunnerName[]).filter((runner) =>
    CONFIGS[runner].some((file) => existsSync(join(root, file))),
  )
  if (found.length === 1) return found[0]
  const pkg = readPackage(root)
  if (!pkg) return found[0]
  const deps = { ...pkg.dependencies, ...pkg.devDependencies }
  const named = (['vitest', 'jest'] as const).filter(
    (runner) =>
      runner in deps ||
      `@agent-tape/${runner}` in deps ||
      (runner === 'jest' && pkg.jest !== undefined) ||
      new RegExp(`\\b${runner}\\b`).test(pkg.scripts?.test ?? ''),
  )
  if (found.length > 1) return named.find((r) => found.includes(r)) ?? found[0]
  return named[0]
}

interface PackageJson {
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  scripts?: Record<string, string>
  jest?: unknown
}

function readPackage(root: string): PackageJson | undefined {
  try {
    return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson
  } catch {
    return undefined
  }
}

/**
 * The command that runs the tests: the one given after `--` as it is, else the project's runner
 * with the test files as filters (`npx vitest run <files>`, `npx jest <files>`). Which mode the
 * tapes run in comes from the environment, which both runners read.
 */
export function testCommandFor(
  root: string,
  given: readonly string[] | undefined,
  filters: readonly string[],
): { argv: string[]; runner: RunnerName | undefined } {
  if (given && given.length > 0) return { argv: [...given, ...filters], runner: undefined }
  const runner = detectRunner(root)
  if (!runner) {
    throw usageError(
      'agent-tape drift',
      `cannot tell how ${root} runs its tests: it has no Vitest or Jest config file, and its package.json names neither`,
      'Give the test command after --: agent-tape drift -- npx vitest run',
    )
  }
  const args = runner === 'vitest' ? ['run', ...filters] : [...filters]
  return { argv: [...binOf(root, runner), ...args], runner }
}

/**
 * How to start the runner: its bin in the project's `node_modules/.bin` when it is there (npx
 * would find the same one, a few hundred milliseconds later), else through npx, which never
 * installs what is not there.
 */
function binOf(root: string, runner: RunnerName): string[] {
  const bin = join(root, 'node_modules', '.bin', runner)
  if (process.platform !== 'win32' && existsSync(bin)) return [bin]
  return ['npx', '--no-install', runner]
}
