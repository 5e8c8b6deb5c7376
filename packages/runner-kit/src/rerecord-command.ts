/** The update switch every runner understands after `--`: runners reject unknown flags before it. */
export const UPDATE_FLAG = '--update-cassettes'

/**
 * The sibling of {@link UPDATE_FLAG} for mode `resume`: each tape replays while its cassette
 * matches and records from its first miss, so a change at step 40 spends the tokens of the steps
 * from 40 on, not of the whole run.
 */
export const RESUME_FLAG = '--resume-cassettes'

/** Jest's CLI with agent-tape's switches, the bin of `@agent-tape/jest` (decision 0006). */
export const JEST_BIN = 'agent-tape-jest'

/** The agent-tape command line: the bin of `@agent-tape/cli`, which each runner package ships too. */
export const CLI_BIN = 'agent-tape'

/**
 * A command that runs a bin of an installed agent-tape package with the project's package
 * runner, in a form that never fetches from the registry. A plain `npx agent-tape` downloads
 * whatever package is named `agent-tape` when the bin is not installed (and assumes yes without
 * a terminal, as in CI); our packages are scoped, so that name is not ours. `--no-install`
 * makes npx fail instead; pnpm, yarn and `bun run` only ever run installed bins.
 *
 * @example
 * binCommand('agent-tape', 'view x.jsonl') // 'npx --no-install agent-tape view x.jsonl'
 * binCommand('agent-tape', 'view x.jsonl', 'pnpm') // 'pnpm agent-tape view x.jsonl'
 */
export function binCommand(bin: string, args: string, exec = 'npx'): string {
  const runner = exec === 'npx' ? 'npx --no-install' : exec === 'bunx' ? 'bun run' : exec
  return `${runner} ${bin} ${args}`
}

/** A command of Jest's CLI with agent-tape's switches: `npx --no-install agent-tape-jest <args>`. */
export function jestCommand(args: string, exec = 'npx'): string {
  return binCommand(JEST_BIN, args, exec)
}

/** The test runners agent-tape integrates with. */
export type RunnerName = 'vitest' | 'jest'

export interface RerecordCommandInput {
  runner: RunnerName
  /** The test file, relative to the directory the command runs in, with `/` separators. */
  testFile: string
  /** Names from the outermost `describe` to the test, as the runner's name filter sees them. */
  names: readonly string[]
  /** How the user runs binaries of the project: `npx` (default), `pnpm`, `yarn` or `bunx`. */
  exec?: string
  /** {@link UPDATE_FLAG} (default), or {@link RESUME_FLAG} to record from the test's first miss on. */
  flag?: typeof UPDATE_FLAG | typeof RESUME_FLAG
}

/**
 * The exact command that re-records one test and nothing else, printed in every
 * divergence report: its file as the path filter and its full name, anchored, as the name
 * filter. Jest's goes through agent-tape's Jest CLI, which takes the switch out before Jest
 * sees it: plain `jest` would take it for a test path pattern and print it back in its summary.
 *
 * @example
 * buildRerecordCommand({ runner: 'vitest', testFile: 'test/agent.test.ts', names: ['issue-412'] })
 * // "npx vitest run test/agent.test.ts -t '^issue-412$' -- --update-cassettes"
 * buildRerecordCommand({ runner: 'jest', testFile: 'test/agent.test.ts', names: ['issue-412'] })
 * // "npx --no-install agent-tape-jest test/agent.test.ts -t '^issue-412$' --update-cassettes"
 */
export function buildRerecordCommand({
  runner,
  testFile,
  names,
  exec = 'npx',
  flag = UPDATE_FLAG,
}: RerecordCommandInput): string {
  const pattern = `^${escapeRegExp(names.join(' '))}$`
  const file = quoteShell(testFile.replace(/\\/g, '/'))
  if (runner === 'vitest') {
    return `${exec} vitest run ${file} -t ${quoteShell(pattern)} -- ${flag}`
  }
  return jestCommand(`${file} -t ${quoteShell(pattern)} ${flag}`, exec)
}

/** The command that re-records every tape that runs, as the runner's docs give it. */
export function buildUpdateAllCommand(runner: RunnerName, exec = 'npx'): string {
  return runner === 'vitest' ? `${exec} vitest run -- ${UPDATE_FLAG}` : jestCommand(UPDATE_FLAG, exec)
}

/** `npx`, `pnpm`, `yarn` or `bunx`, from the user agent a package manager sets for scripts. */
export function detectExec(userAgent: string | undefined): string {
  const name = userAgent?.split('/')[0]
  if (name === 'pnpm' || name === 'yarn') return name
  if (name === 'bun') return 'bunx'
  return 'npx'
}

export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
}

export function quoteShell(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text
  return `'${text.replace(/'/g, `'\\''`)}'`
}

export interface SetupRerecordCommandInput {
  runner: RunnerName
  /** The test file, relative to the directory the command runs in, with `/` separators. */
  testFile: string
  /** The describe blocks around the hook, outermost first (none for a hook of the file). */
  describes: readonly string[]
  exec?: string
}

/**
 * The command that re-records a setup tape (`beforeAll.tape`, `afterAll.tape`): the tests of its
 * describe block (of its file, for a hook of the file), whose run runs the hook. It re-records
 * those tests' cassettes too, recorded against the session the new setup opens.
 *
 * @example
 * buildSetupRerecordCommand({ runner: 'vitest', testFile: 'test/mcp.test.ts', describes: ['weather'] })
 * // "npx vitest run test/mcp.test.ts -t '^weather ' -- --update-cassettes"
 */
export function buildSetupRerecordCommand({
  runner,
  testFile,
  describes,
  exec = 'npx',
}: SetupRerecordCommandInput): string {
  const file = quoteShell(testFile.replace(/\\/g, '/'))
  const filter = describes.length > 0 ? ` -t ${quoteShell(`^${escapeRegExp(describes.join(' '))} `)}` : ''
  if (runner === 'vitest') return `${exec} vitest run ${file}${filter} -- ${UPDATE_FLAG}`
  return jestCommand(`${file}${filter} ${UPDATE_FLAG}`, exec)
}
