import { JestProject } from '../jest/support/jest-project.js'
import { CITY_AGENT, type FixtureProject, type RunResult } from '../support/fixture-project.js'
import { VitestProject } from '../vitest/support/vitest-project.js'

/** A temporary fixture project of one runner. */
export interface RunnerProject extends FixtureProject {
  /** Runs the project's tests once: `vitest run <args>` or `jest <args>`. */
  runTests(args: string, env?: Record<string, string>): Promise<RunResult>
}

export interface TestCounts {
  failed?: number
  passed?: number
  skipped?: number
}

/**
 * What differs between the Vitest plugin and the Jest preset in the scenarios both must pass
 * alike: how a project is made and run, the commands a user types, and how the runner prints.
 */
export interface Runner {
  readonly name: 'Vitest' | 'Jest'
  /**
   * A copy of `source`, or of the runner's `agent` fixture with `layer` over it (default: the
   * shared city agent).
   */
  project(source?: RunnerProject, layer?: string): RunnerProject
  /** The runner's config file, with `agentTape` (an object literal) as the agent-tape options. */
  config(agentTape: string): string
  /** How a command that runs the tests starts, as agent-tape prints it. */
  readonly cli: string
  /** How the command that re-records one test starts, and how it ends after the name filter. */
  readonly rerecord: { readonly start: string; readonly end: string }
  /** What the runner prints before the error a failed test reports first. */
  failureStart(file: string, names: string): string
  /** The command that re-records every tape that runs, as agent-tape prints it. */
  readonly updateAllCommand: string
  /** Re-records every tape that runs, with the command the runner's docs give. */
  updateAll(project: RunnerProject, env: Record<string, string>): Promise<RunResult>
  /** How the obsolete-cassettes list says to prune. */
  readonly pruneHint: string
  /** Prunes as the hint says. */
  prune(project: RunnerProject, env: Record<string, string>): Promise<RunResult>
  /** The runner's own switch that means CI, and how agent-tape names it; the CI variable always does. */
  readonly ciSwitch?: { readonly args: string; readonly why: string }
  /** The fixture's config file, whose agentTape options end with the model endpoint. */
  readonly configFile: string
  /** The stream the summary is written to. */
  readonly summaryStream: 'stdout' | 'stderr'
  /** What the runner adds before the lines of a failure message after the first. */
  readonly failureIndent: string
  /** The lines a test file starts with to define tapes (Jest's are globals). */
  readonly preamble: readonly string[]
  /** A tape per row of `rows` (an array literal of one-value rows), whose `body` reads `row` and `tape`. */
  tapeEach(rows: string, title: string, body: string): string
  /** The runner's line counting the tests of a run. */
  tests(counts: TestCounts): string
}

const total = ({ failed = 0, passed = 0, skipped = 0 }: TestCounts) => failed + passed + skipped

export const VITEST: Runner = {
  name: 'Vitest',
  project: (source, layer = CITY_AGENT) =>
    source ? new VitestProject(source) : new VitestProject('agent', layer),
  config: (agentTape) =>
    [
      "import { agentTape } from '@agent-tape/vitest/plugin'",
      "import { defineConfig } from 'vitest/config'",
      '',
      `export default defineConfig({ plugins: [agentTape(${agentTape})] })`,
      '',
    ].join('\n'),
  cli: 'npx vitest run',
  rerecord: { start: 'npx vitest run', end: '-- --update-cassettes' },
  failureStart: (file, names) => ` FAIL  ${file} > ${names.replaceAll(' ', ' > ')}\n`,
  updateAllCommand: 'npx vitest run -- --update-cassettes',
  updateAll: (project, env) => project.runTests('-- --update-cassettes', env),
  pruneHint: '-- --prune-cassettes',
  prune: (project, env) => project.runTests('-- --prune-cassettes', env),
  configFile: 'vitest.config.ts',
  summaryStream: 'stdout',
  failureIndent: '',
  preamble: ["import { describe, expect, it } from '@agent-tape/vitest'"],
  tapeEach: (rows, title, body) => `it.tape.for(${rows})('${title}', async ([row], { tape }) => { ${body} })`,
  tests: ({ failed, passed, skipped }) => {
    const parts = [
      failed && `${failed} failed`,
      passed && `${passed} passed`,
      skipped && `${skipped} skipped`,
    ].filter(Boolean)
    return `Tests  ${parts.join(' | ')} (${total({ failed, passed, skipped })})`
  },
}

const JEST_PRUNE = 'npx --no-install agent-tape-jest --prune-cassettes'

export const JEST: Runner = {
  name: 'Jest',
  project: (source, layer = CITY_AGENT) =>
    source ? new JestProject(source) : new JestProject('agent', layer),
  config: (agentTape) =>
    [
      "/** @type {import('jest').Config} */",
      'module.exports = {',
      "  preset: '@agent-tape/jest',",
      '  transform: {',
      "    '\\\\.ts$': [",
      "      'babel-jest',",
      "      { presets: ['@babel/preset-typescript'], plugins: ['@babel/plugin-transform-modules-commonjs'] },",
      '    ],',
      '  },',
      `  testEnvironmentOptions: { agentTape: ${agentTape} },`,
      '}',
      '',
    ].join('\n'),
  cli: 'npx jest',
  // Jest's CLI with agent-tape's switches: plain Jest would echo the switch as a path pattern.
  rerecord: { start: 'npx --no-install agent-tape-jest', end: '--update-cassettes' },
  failureStart: (_file, names) => `  ● ${names.replaceAll(' ', ' › ')}\n\n    `,
  updateAllCommand: 'npx --no-install agent-tape-jest --update-cassettes',
  updateAll: (project, env) => project.run('npx agent-tape-jest --update-cassettes', env),
  pruneHint: JEST_PRUNE,
  prune: (project, env) => project.run(JEST_PRUNE, env),
  ciSwitch: { args: '--ci', why: "Jest's --ci is given" },
  configFile: 'jest.config.js',
  summaryStream: 'stderr',
  // Jest indents a failure message by four spaces.
  failureIndent: '    ',
  preamble: [],
  tapeEach: (rows, title, body) => `it.tape.each(${rows})('${title}', async (row, { tape }) => { ${body} })`,
  tests: ({ failed, passed, skipped }) => {
    const parts = [
      failed && `${failed} failed`,
      skipped && `${skipped} skipped`,
      passed && `${passed} passed`,
    ].filter(Boolean)
    return `Tests:       ${parts.join(', ')}, ${total({ failed, passed, skipped })} total`
  },
}

export const RUNNERS = [VITEST, JEST]

/** A failure message as the runner prints it: the lines after the first indented by the runner. */
export function failure(runner: Runner, lines: readonly string[]): string {
  return lines.map((line, i) => (i > 0 && line ? runner.failureIndent + line : line)).join('\n')
}

/** The command agent-tape prints to re-record one test. */
export function rerecordCommand(runner: Runner, file: string, name: string): string {
  return `${runner.rerecord.start} ${file} -t '^${name}$' ${runner.rerecord.end}`
}

/** Adds `option` (`name: value`) to the agentTape options of the project's config. */
export function configure(runner: Runner, project: RunnerProject, option: string): void {
  const config = project.read(runner.configFile)
  const end = '/v1`]'
  if (!config.includes(end)) throw new Error(`${runner.configFile} has no "${end}" to add ${option} after`)
  project.write(runner.configFile, config.replace(end, `${end}, ${option}`))
}

/** A test file: the runner's preamble, then `lines`. */
export function testFile(runner: Runner, lines: readonly string[]): string {
  return [...runner.preamble, ...lines, ''].join('\n')
}
