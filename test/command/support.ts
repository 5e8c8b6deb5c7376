import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createCliIo, main } from '@agent-tape/cli'
import { parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { FixtureProject, REPO_ROOT } from '../support/fixture-project.js'
import { toolResultsIn } from '../support/scripts.js'

export const CLI_AGENT = join(REPO_ROOT, 'test/command/fixtures/cli-agent')
export const TASK = readFileSync(join(CLI_AGENT, 'tasks/issue-412.txt'), 'utf8').trim()

/**
 * The scripted model of the CLI agent: eleven charges looked up one by one, then the answer (a
 * 12-step tool loop); a request without tools (the workers' parent) gets a short answer. From
 * `slowAfter` tool results on, each stream event waits, so that a test can interrupt mid-stream.
 */
export function agentScript(slowAfter = Number.POSITIVE_INFINITY) {
  return (request: { body: Record<string, unknown> }): Turn => {
    if (!request.body.tools) return { text: `noted: ${JSON.stringify(request.body).length} bytes` }
    const seen = toolResultsIn(request.body)
    const pace = seen >= slowAfter ? { chunkDelayMs: 400 } : {}
    if (seen < 11) return { toolCalls: [{ name: 'lookup_charge', args: { n: seen + 1 } }], ...pace }
    return {
      text: ['Refund charge 7 ', '(49 EUR), ', 'the duplicate.'],
      usage: { inputTokens: 900, outputTokens: 9 },
    }
  }
}

export async function startAgentProvider(slowAfter?: number): Promise<FakeProvider> {
  return startFakeProvider({ reply: agentScript(slowAfter), seed: 'cli-agent' })
}

/** A copy of the CLI agent in a temporary folder, its node_modules the repository's. */
export function agentProject(label: string): FixtureProject {
  return new FixtureProject(label, [CLI_AGENT])
}

/** The environment a user's shell would give the agent: the provider's URLs and a key, nothing from CI. */
export function agentEnv(provider: FakeProvider, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    OPENAI_BASE_URL: provider.openaiBaseURL,
    ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
    OPENAI_API_KEY: 'test-openai-key',
    ANTHROPIC_API_KEY: 'test-anthropic-key',
    AGENT_TAPE_MODEL_ENDPOINTS: provider.url,
    ...extra,
  }
}

export interface CliRun {
  code: number
  /** What agent-tape printed (stderr). */
  stderr: string
  /** What the command printed on stdout. */
  output: string
}

/** `agent-tape <args>` in this process, with the command's output collected instead of inherited. */
export async function cli(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<CliRun> {
  let stderr = ''
  let output = ''
  const io = createCliIo(
    {
      stdout: { isTTY: false, write: (text: string) => (output += text) },
      stderr: { write: (text: string) => (stderr += text) },
    },
    { ...env },
    cwd,
  )
  io.commandStdio = 'pipe'
  io.commandOutput = (stream, text) => {
    if (stream === 'stdout') output += text
  }
  const code = await main(args, io)
  return { code, stderr, output }
}

export function readCassette(file: string) {
  return parseCassette(readFileSync(file, 'utf8'), file)
}

/** The lanes of a cassette's decisions in file order, `''` for the main lane, each run of one lane once. */
export function laneRuns(file: string): string[] {
  const runs: string[] = []
  for (const d of readCassette(file).decisions) {
    const lane = d.lane ?? ''
    if (runs.at(-1) !== lane) runs.push(lane)
  }
  return runs
}
