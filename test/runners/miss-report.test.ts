import { join } from 'node:path'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../support/fixture-project.js'
import { RUNNERS, type RunnerProject, rerecordCommand, testFile } from './runners.js'
import { count } from './scenarios.js'

// The miss is the error: whatever an SDK made of the answer to a missed request (openai's and
// Anthropic's `400 …`, Gemini's JSON-escaped body, Bedrock's exception, a bare fetch's body in
// the app's own error), the test reports the ReplayMiss itself, first and once, without the
// HTTP status or the frames of the SDK or of agent-tape.

const SDK_QUESTIONS = join(REPO_ROOT, 'test/support/fixtures/sdk-questions')
const FILE = 'test/sdks.test.ts'

/** Each tape asks through one SDK, the way the app calls it. */
const ASK = {
  openai: 'askOpenAI',
  'openai-stream': 'askOpenAIStream',
  anthropic: 'askAnthropic',
  'anthropic-stream': 'askAnthropicStream',
  ai: 'askAi',
  gemini: 'askGemini',
  bedrock: 'askBedrock',
  fetch: 'askFetch',
} as const
const SDKS = Object.keys(ASK) as (keyof typeof ASK)[]

const TEST = [
  `import { ${Object.values(ASK).join(', ')} } from '../src/sdks'`,
  '',
  ...SDKS.map((sdk) => `it.tape('${sdk}', async () => { expect(await ${ASK[sdk]}('Hi?')).toBe('Hello.') })`),
  '',
  "describe('agent', () => {",
  '  // The agent swallows the SDK error, and the test trips on its answer.',
  "  it.tape('swallowed', async () => { expect(await askOpenAI('Hi?').catch(() => 'no answer')).toBe('Hello.') })",
  '})',
  '',
  "describe('errors', () => {",
  "  // The run ends in the app's error, which the tests expect (as a promoted test does).",
  "  const refuse = async () => { throw new Error('refused: ' + (await askOpenAI('Hi?'))) }",
  "  it.tape('rejects', async () => { await expect(refuse()).rejects.toThrow('refused: Hello.') })",
  "  it.tape('message', async () => { const error = await refuse().catch((e) => e); expect(error.message).toBe('refused: Hello.') })",
  '})',
]
const ERROR_TESTS = ['errors rejects', 'errors message']

const SDK_FRAME =
  /^ *(?:❯|at) .*node_modules\/(?:openai|@anthropic-ai|ai|@ai-sdk|@google|@aws-sdk|@smithy|@mswjs)\//m

const TWO_SENTENCES = "export const SYSTEM_PROMPT = 'You answer in two sentences.'\n"

describe.concurrent.each(RUNNERS)('$name', { timeout: 180_000 }, (runner) => {
  let provider: FakeProvider
  let project: RunnerProject
  const env = () => ({ FAKE_PROVIDER_URL: provider.url, FAKE_PROVIDER_HTTP2_URL: provider.http2Url! })

  beforeAll(async () => {
    provider = await startFakeProvider({ reply: () => ({ text: 'Hello.' }), http2: true })
    project = runner.project(undefined, SDK_QUESTIONS)
    for (const file of ['agent', 'claude', 'concurrent']) project.remove(`test/${file}.test.ts`)
    project.write(
      runner.configFile,
      runner.config(
        '{ modelEndpoints: [process.env.FAKE_PROVIDER_URL, process.env.FAKE_PROVIDER_HTTP2_URL] }',
      ),
    )
    project.write(FILE, testFile(runner, TEST))
    const record = await project.runTests('', env())
    expect(record.code, record.output).toBe(0)
    expect(project.cassettes()).toHaveLength(SDKS.length + 1 + ERROR_TESTS.length)
  }, 180_000)
  afterAll(async () => {
    await provider?.close()
    project?.dispose()
  })

  it('fails a prompt edit with the ReplayMiss itself, first and once per test, whatever SDK carried it', async () => {
    project.write('src/prompt.ts', TWO_SENTENCES)
    const before = provider.requests.length
    const run = await project.runTests('', env())
    expect(run.code).toBe(1)
    expect(provider.requests.length).toBe(before)
    for (const sdk of SDKS) {
      const start = `${runner.failureStart(FILE, sdk)}ReplayMiss: [agent-tape] Replay miss at step 1, model request (`
      expect(count(run.output, start), `${sdk}:\n${run.output}`).toBe(1)
      expect(count(run.output, rerecordCommand(runner, FILE, sdk)), sdk).toBe(1)
    }
    expect(count(run.output, 'Replay miss at step 1')).toBe(SDKS.length + 1 + ERROR_TESTS.length)
    // No HTTP status before the report, no JSON-escaped copy of it, no frame of an SDK or of the
    // agent-tape code that found the miss.
    expect(run.output).not.toMatch(/\d{3}:? (?:\{"error|\[agent-tape\])/)
    expect(run.output).not.toContain('\\n  cassette')
    expect(run.output).not.toMatch(SDK_FRAME)
    expect(run.output).not.toMatch(/^ *(?:❯|at) .*packages\/(?:core|http|runner-kit)\//m)
    expect(run.output).toContain(
      '    body.system: "You answer in one sentence." → "You answer in two sentences."',
    )
    // The agent swallowed the SDK's error and the test tripped on its answer: the miss comes
    // first, the assertion after it.
    const miss = run.output.indexOf(
      `${runner.failureStart(FILE, 'agent swallowed')}ReplayMiss: [agent-tape] Replay miss at step 1`,
    )
    expect(miss, run.output).toBeGreaterThan(-1)
    expect(run.output.indexOf('no answer', miss)).toBeGreaterThan(miss)
    expect(count(run.output, rerecordCommand(runner, FILE, 'agent swallowed'))).toBe(1)
    // A test that expected the run's own error (as a promoted test does) got the SDK's error of
    // the miss instead: the miss is its one failure, not again inside that assertion's.
    for (const name of ERROR_TESTS) {
      expect(count(run.output, runner.failureStart(FILE, name)), `${name}:\n${run.output}`).toBe(1)
      expect(
        count(run.output, `${runner.failureStart(FILE, name)}ReplayMiss: [agent-tape] Replay miss at step 1`),
      ).toBe(1)
    }
  })
})
