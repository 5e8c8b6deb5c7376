import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RUNNERS, type RunnerProject, rerecordCommand, testFile } from './runners.js'
import { count } from './scenarios.js'

// A teammate without a key runs the suite in the default mode (auto, locally): every tape with a
// cassette replays, and a prompt edit shows its diff. SDK clients are built at import time from
// the key variables, before any tape opens, so the placeholders are set before the test files
// load; a tape that has to record without its key says which key and which test.

/** Clients built at import time with no key of their own, as an app builds them. */
const CLIENTS = `import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'

const url = process.env.FAKE_PROVIDER_URL
export const openai = new OpenAI({ baseURL: url + '/v1', maxRetries: 0 })
export const anthropic = new Anthropic({ baseURL: url, maxRetries: 0 })
export const gemini = new GoogleGenAI({ httpOptions: { baseUrl: url, fetch: (input, init) => fetch(input, init) } })
export const PROMPT = 'Say hello.'
`

const ASK_OPENAI =
  "(await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] })).choices[0]?.message.content"
const ASK_ANTHROPIC =
  "(await anthropic.messages.create({ model: 'claude-sonnet-5', max_tokens: 32, messages: [{ role: 'user', content: PROMPT }] })).content[0]"
const ASK_GEMINI =
  "(await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: PROMPT })).text"

const TAPES = [
  "import { anthropic, gemini, openai, PROMPT } from '../src/clients'",
  '',
  `it.tape('openai', async () => { expect(${ASK_OPENAI}).toBe('Hello.') })`,
  `it.tape('anthropic', async () => { expect(${ASK_ANTHROPIC}).toMatchObject({ text: 'Hello.' }) })`,
  `it.tape('gemini', async () => { expect(${ASK_GEMINI}).toBe('Hello.') })`,
]

/** A teammate's shell: none of the providers' key variables. */
const NO_KEYS = {
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
  GOOGLE_API_KEY: '',
  GEMINI_API_KEY: '',
  GOOGLE_GENERATIVE_AI_API_KEY: '',
}

describe.concurrent.each(RUNNERS)('$name', { timeout: 180_000 }, (runner) => {
  let provider: FakeProvider
  let recorded: RunnerProject
  const projects: RunnerProject[] = []
  const env = (keys: Record<string, string>) => ({ ...NO_KEYS, FAKE_PROVIDER_URL: provider.url, ...keys })
  const copy = () => {
    const project = runner.project(recorded)
    projects.push(project)
    return project
  }

  beforeAll(async () => {
    provider = await startFakeProvider({ reply: () => ({ text: 'Hello.' }) })
    recorded = runner.project()
    projects.push(recorded)
    for (const file of ['agent', 'claude', 'concurrent']) recorded.remove(`test/${file}.test.ts`)
    recorded.write(runner.configFile, runner.config('{ modelEndpoints: [process.env.FAKE_PROVIDER_URL] }'))
    recorded.write('src/clients.ts', CLIENTS)
    recorded.write('test/keyless.test.ts', testFile(runner, TAPES))
    const keys = { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test', GEMINI_API_KEY: 'test' }
    const record = await recorded.runTests('', env(keys))
    expect(record.code, record.output).toBe(0)
    expect(record.output).toContain('3 tapes: 0 replayed cleanly, 3 recorded, 0 diverged')
  }, 180_000)
  afterAll(async () => {
    await provider?.close()
    for (const project of projects) project.dispose()
  })

  it.sequential('replays every tape with a cassette with no key, in the default mode', async () => {
    const project = copy()
    const before = provider.connections
    const run = await project.runTests('', env({}))
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain('3 tapes: 3 replayed cleanly, 0 recorded, 0 diverged')
    expect(run.output).toContain('  test/keyless.test.ts > openai     auto  clean')
    expect(provider.connections).toBe(before)
    // One placeholder for the key @google/genai reads from two variables.
    expect(run.output).not.toContain('Both GOOGLE_API_KEY and GEMINI_API_KEY are set')
    expect(run.output).not.toMatch(/Missing credentials|API key must be set|apiKey/i)
    const ci = await project.runTests('', env({ CI: 'true' }))
    expect(ci.code, ci.output).toBe(0)
    expect(ci.output).toContain('3 tapes: 3 replayed cleanly, 0 recorded, 0 diverged')
    expect(ci.output).not.toContain('Both GOOGLE_API_KEY and GEMINI_API_KEY are set')
  })

  it.sequential('shows the diff of a prompt edit with no key, as it does with one', async () => {
    const project = copy()
    project.write('src/clients.ts', CLIENTS.replace("'Say hello.'", "'Say hello, briefly.'"))
    const run = await project.runTests('', env({}))
    expect(run.code).toBe(1)
    expect(run.output).toContain(runner.tests({ failed: 3 }))
    expect(count(run.output, 'Input changed (recorded → now):')).toBe(3)
    expect(run.output).toContain('"Say hello." → "Say hello, briefly."')
    expect(run.output).not.toMatch(/Missing credentials|API key must be set/)
  })

  it.sequential('refuses to record a new tape for a provider with a placeholder key, naming the variable and the test, and writes nothing', async () => {
    const project = copy()
    project.write(
      'test/new.test.ts',
      testFile(runner, [
        "import OpenAI from 'openai'",
        "import { openai, PROMPT } from '../src/clients'",
        '',
        '// The provider itself: its request is refused before it leaves.',
        'const hosted = new OpenAI({ maxRetries: 0 })',
        `it.tape('fresh', async () => { expect(${ASK_OPENAI.replace('openai.', 'hosted.')}).toBe('Hello.') })`,
        '// A local model or a test server needs no key: the placeholder never leaves the machine.',
        `it.tape('local', async () => { expect(${ASK_OPENAI}).toBe('Hello.') })`,
      ]),
    )
    const before = provider.requests.length
    const run = await project.runTests('', env({}))
    expect(run.code).toBe(1)
    expect(run.output).toContain(runner.tests({ failed: 1, passed: 4 }))
    const refusal = `[agent-tape] Cannot record test "test/new.test.ts > fresh": its request to api.openai.com would carry no API key: OPENAI_API_KEY is not set, so agent-tape gave it a placeholder for the tapes that replay from their cassettes, and this tape records (test/__cassettes__/new.test.ts/fresh.jsonl does not exist yet); the request was not sent, and nothing is written. Set OPENAI_API_KEY and run this test again to record it: ${rerecordCommand(runner, 'test/new.test.ts', 'fresh')}.`
    expect(count(run.output, refusal), run.output).toBe(1)
    expect(run.output).toContain(
      `${runner.failureStart('test/new.test.ts', 'fresh')}AgentTapeError: ${refusal}`,
    )
    expect(run.output).toContain(
      '  test/new.test.ts > fresh          auto  recorded         -  0 (not written)',
    )
    expect(run.output).toContain(
      '  test/new.test.ts > local          auto  recorded         -                1',
    )
    expect(run.output).toContain('3 replayed cleanly')
    expect(project.cassettes()).not.toContain('test/__cassettes__/new.test.ts/fresh.jsonl')
    expect(project.cassettes()).toContain('test/__cassettes__/new.test.ts/local.jsonl')
    expect(provider.requests.length).toBe(before + 1)
  })
})
