import { describe, expect, it } from 'vitest'
import { useRecordedFixture } from './recorded-fixture.js'
import { RUNNERS, type Runner, type RunnerProject } from './runners.js'
import { count } from './scenarios.js'

// MSW set up halfway: the team's MSW server has tapeHandlers(), but the runner keeps its own
// interception (interception: 'msw' forgotten). Every request would be intercepted twice, and
// each model request recorded (or replayed) more than once: the first one fails the tape at once
// with what to set. msw 2 here; msw 3 (ES modules only, Node 22 and later) in the compat stage.

const CITY_TOOLS = [
  'const cityTools = {',
  "  get_weather: async ({ city }) => city + ': 18°C, light rain',",
  "  get_time: async ({ city }) => city + ': 14:05',",
  '}',
]

/** The team's MSW server, as its setup file starts it, with the tape handlers in it. */
function mswSetup(runner: Runner): string {
  return [
    "import { tapeHandlers } from '@agent-tape/http/msw'",
    "import { HttpResponse, http } from 'msw'",
    "import { setupServer } from 'msw/node'",
    runner.name === 'Vitest' ? "import { afterAll } from 'vitest'" : '',
    '',
    'const server = setupServer(',
    "  ...tapeHandlers({ modelEndpoints: [process.env.FAKE_PROVIDER_URL + '/v1'] }),",
    "  http.get('https://accounts.internal.example/api/me', () => HttpResponse.json({ id: 'u_1' })),",
    ')',
    'server.listen()',
    'afterAll(() => server.close())',
    '',
  ].join('\n')
}

/** A three-step agent that also calls the team's mocked API. */
function agentTest(runner: Runner): string {
  return [
    runner.name === 'Vitest' ? "import { expect, it } from '@agent-tape/vitest'" : '',
    `import { runAgent } from '../src/agent${runner.name === 'Vitest' ? '' : '.ts'}'`,
    '',
    ...CITY_TOOLS,
    '',
    "it.tape('agent', async ({ tape }) => {",
    "  expect(await (await fetch('https://accounts.internal.example/api/me')).json()).toEqual({ id: 'u_1' })",
    "  expect(await runAgent('Weather in Oslo?', tape.tools(cityTools))).toMatch(/Oslo/)",
    "  expect(tape).toHaveDecisions(3, 'llm')",
    '})',
    '',
  ].join('\n')
}

/** The project with the team's server and the runner's own interception still on. */
function halfway(runner: Runner, project: RunnerProject): void {
  if (runner.name === 'Vitest') {
    project.write(
      'vitest.config.ts',
      [
        "import { agentTape } from '@agent-tape/vitest/plugin'",
        "import { defineConfig } from 'vitest/config'",
        '',
        'export default defineConfig({',
        "  plugins: [agentTape({ modelEndpoints: [process.env.FAKE_PROVIDER_URL + '/v1'] })],",
        "  test: { setupFiles: ['./test/msw-setup.ts'] },",
        '})',
        '',
      ].join('\n'),
    )
    project.write('test/msw-setup.ts', mswSetup(runner))
    project.write('test/team.test.ts', agentTest(runner))
    return
  }
  // msw loads in Jest as an ES module only: the setup file and the test are ES modules.
  project.write(
    'jest.config.js',
    [
      'module.exports = {',
      "  preset: '@agent-tape/jest',",
      "  testMatch: ['**/test/**/*.test.mjs'],",
      "  setupFilesAfterEnv: ['<rootDir>/test/msw-setup.mjs'],",
      "  transform: { '\\\\.ts$': ['babel-jest', { presets: ['@babel/preset-typescript'] }] },",
      "  extensionsToTreatAsEsm: ['.ts'],",
      "  testEnvironmentOptions: { agentTape: { modelEndpoints: [process.env.FAKE_PROVIDER_URL + '/v1'] } },",
      '}',
      '',
    ].join('\n'),
  )
  project.write('test/msw-setup.mjs', mswSetup(runner))
  project.write('test/team.test.mjs', agentTest(runner))
}

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  const fixture = useRecordedFixture(runner)
  const { env, copy } = fixture
  const run = (project: RunnerProject, extra: Record<string, string> = {}) =>
    runner.name === 'Vitest'
      ? project.runTests('test/team.test.ts', { ...env(), ...extra })
      : project.run(`node --experimental-vm-modules node_modules/jest/bin/jest.js test/team.test.mjs`, {
          ...env(),
          ...extra,
        })

  it.sequential('fails at once, naming interception: msw, when tapeHandlers() and the runner both intercept', async () => {
    const project = copy()
    halfway(runner, project)
    const before = project.snapshot('test/__cassettes__')
    const requests = fixture.provider.requests.length
    const record = await run(project)
    expect(record.code).toBe(1)
    // The runner's setup runs before the team's in Jest (tapeHandlers() refuses to be built),
    // after it in Vitest (the first request that reaches the handlers is refused).
    const refusal =
      runner.name === 'Jest'
        ? "[agent-tape] tapeHandlers() cannot join an MSW server here: agent-tape's own interception is installed: the runner intercepts requests itself (interception: 'agent-tape', the default), so each request a tape makes would be intercepted twice"
        : `[agent-tape] Two interceptions of POST ${fixture.provider.url}/v1/chat/completions: it reached tapeHandlers() in your MSW server while agent-tape's own interception is installed: the runner intercepts requests itself (interception: 'agent-tape', the default), so each request a tape makes would be intercepted twice`
    expect(count(record.output, refusal), record.output).toBe(1)
    expect(record.output).toContain(
      "Set interception: 'msw' in the agent-tape options (the agentTape() plugin options, or testEnvironmentOptions.agentTape in Jest): your MSW server is then the only interception, with tapeHandlers() in it.",
    )
    expect(record.output).not.toContain('llm decisions')
    // Nothing recorded twice, nothing written, nothing sent.
    expect(fixture.provider.requests.length).toBe(requests)
    expect(project.snapshot('test/__cassettes__')).toEqual(before)
  })
})
