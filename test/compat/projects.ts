/**
 * The compatibility matrix: fresh projects that install the packed tarballs with npm, next to the
 * runner and SDK versions users have, record a real agent against the loopback fake provider,
 * then replay it in a keyless CI run. Each combination that matters is one project.
 */
import type { Published } from '../support/pack.js'

export interface CompatProject {
  name: string
  node: 20 | 22 | 24
  runner: 'vitest' | 'jest'
  /** agent-tape packages installed from their tarballs. */
  packages: Published[]
  /** Registry dependencies, exact versions. */
  dependencies: Record<string, string>
  /** The tapes the project's test file defines (each a scenario below). */
  scenarios: Scenario[]
  /** The team's own MSW server is the interception (`interception: 'msw'`). */
  msw?: 2 | 3
  /**
   * Jest only: the test files are ES modules (`.mjs`), run with Node's VM modules enabled, as
   * Jest needs to load msw on Node 22. On Node 24.9 and later, CommonJS test files may require
   * msw once VM modules are enabled.
   */
  esm?: boolean
}

export type Scenario =
  | 'openai-chat-stream'
  | 'openai-responses-stream'
  | 'anthropic-stream'
  | 'ai-stream-text'
  | 'msw-team-api'

export const ANSWER = 'Hello from the fake provider.'

/**
 * In MSW projects, a tape defined only when GUARD_CHECK is set: a request no handler answers,
 * which MSW lets through and agent-tape must refuse while a tape runs.
 */
export const GUARD_TAPE = `
if (process.env.GUARD_CHECK) {
  it.tape('msw-unhandled', async () => {
    await fetch('https://unmocked.internal.example/x')
  })
}`

// Each runner depends on the CLI (its agent-tape bin): npm takes it from the tarball beside it.
const VITEST = ['core', 'http', 'inspect', 'runner-kit', 'cli', 'vitest'] as Published[]
const JEST = ['core', 'http', 'inspect', 'runner-kit', 'cli', 'jest'] as Published[]

export const PROJECTS: CompatProject[] = [
  {
    name: 'vitest5-node22-openai7-ai7',
    node: 22,
    runner: 'vitest',
    packages: VITEST,
    dependencies: {
      vitest: '5.1.2',
      openai: '7.59.0',
      '@anthropic-ai/sdk': '1.14.0',
      ai: '7.0.173',
      '@ai-sdk/openai': '4.0.77',
    },
    scenarios: ['openai-chat-stream', 'openai-responses-stream', 'anthropic-stream', 'ai-stream-text'],
  },
  {
    name: 'vitest5-node24-msw3',
    node: 24,
    runner: 'vitest',
    packages: VITEST,
    dependencies: { vitest: '5.1.2', openai: '7.59.0', msw: '3.0.5' },
    scenarios: ['openai-chat-stream', 'msw-team-api'],
    msw: 3,
  },
  {
    name: 'vitest4-node22-msw2',
    node: 22,
    runner: 'vitest',
    packages: VITEST,
    dependencies: { vitest: '4.1.12', openai: '7.59.0', msw: '2.15.0' },
    scenarios: ['openai-chat-stream', 'msw-team-api'],
    msw: 2,
  },
  {
    name: 'vitest4-node20-openai6-ai6',
    node: 20,
    runner: 'vitest',
    packages: VITEST,
    dependencies: {
      vitest: '4.1.12',
      openai: '6.49.0',
      '@anthropic-ai/sdk': '1.14.0',
      ai: '6.0.325',
      '@ai-sdk/openai': '3.0.141',
    },
    scenarios: ['openai-chat-stream', 'openai-responses-stream', 'anthropic-stream', 'ai-stream-text'],
  },
  {
    name: 'jest30-node22-openai7',
    node: 22,
    runner: 'jest',
    packages: JEST,
    dependencies: { jest: '30.5.2', openai: '7.59.0', '@anthropic-ai/sdk': '1.14.0' },
    scenarios: ['openai-chat-stream', 'openai-responses-stream', 'anthropic-stream'],
  },
  {
    name: 'jest30-node24-msw3',
    node: 24,
    runner: 'jest',
    packages: JEST,
    dependencies: { jest: '30.5.2', openai: '7.59.0', msw: '3.0.5' },
    scenarios: ['openai-chat-stream', 'msw-team-api'],
    msw: 3,
  },
  {
    name: 'jest30-node22-msw2-esm',
    node: 22,
    runner: 'jest',
    packages: JEST,
    dependencies: { jest: '30.5.2', openai: '7.59.0', msw: '2.15.0' },
    scenarios: ['openai-chat-stream', 'msw-team-api'],
    msw: 2,
    esm: true,
  },
  {
    name: 'jest30-node24-openai6',
    node: 24,
    runner: 'jest',
    packages: JEST,
    dependencies: { jest: '30.5.2', openai: '6.49.0', '@anthropic-ai/sdk': '1.14.0' },
    scenarios: ['openai-chat-stream', 'anthropic-stream'],
  },
]

/** The body of each scenario's tape, in the test file's module syntax. */
const BODIES: Record<Scenario, string> = {
  'openai-chat-stream': `
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Say hello.' }],
      stream: true,
    })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    expect(text).toBe(ANSWER)`,
  'openai-responses-stream': `
    const stream = await openai.responses.create({ model: 'gpt-4o', input: 'Say hello.', stream: true })
    let text = ''
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta
    expect(text).toBe(ANSWER)`,
  'anthropic-stream': `
    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Say hello.' }],
    })
    expect(await stream.finalText()).toBe(ANSWER)`,
  'ai-stream-text': `
    const result = streamText({ model: createOpenAI({ baseURL: base + '/v1' })('gpt-4o'), prompt: 'Say hello.' })
    let text = ''
    for await (const part of result.textStream) text += part
    expect(text).toBe(ANSWER)`,
  'msw-team-api': `
    const me = await (await fetch('https://accounts.internal.example/api/me')).json()
    expect(me).toEqual({ id: 'u_1', plan: 'pro' })
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Say hello to ' + me.id + '.' }],
      stream: true,
    })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    expect(text).toBe(ANSWER)`,
}

/** The files of a project, by path. */
export function projectFiles(
  project: CompatProject,
  tarballs: Record<string, string>,
  options: {
    /** MSW set up halfway: the team's server has tapeHandlers(), the runner keeps its own interception. */
    halfway?: boolean
  } = {},
): Record<string, string> {
  const interception = project.msw && !options.halfway ? ", interception: 'msw'" : ''
  // Halfway, the handlers know only what the team gives them: the fake stands in for a provider host.
  const handlers = options.halfway
    ? 'tapeHandlers({ modelEndpoints: [process.env.FAKE_PROVIDER_URL] })'
    : 'tapeHandlers()'
  const packageJson = {
    name: project.name,
    private: true,
    type: project.runner === 'vitest' ? 'module' : 'commonjs',
    scripts: { test: project.runner === 'vitest' ? 'vitest run' : 'jest' },
    devDependencies: {
      ...Object.fromEntries(project.packages.map((p) => [packageName(p), tarballs[packageName(p)]])),
      ...project.dependencies,
    },
  }
  const files: Record<string, string> = { 'package.json': `${JSON.stringify(packageJson, null, 2)}\n` }
  const uses = (dependency: string) => dependency in project.dependencies
  const tapes = [
    ...project.scenarios.map((s) => `it.tape('${s}', async () => {${BODIES[s]}\n})`),
    project.msw ? GUARD_TAPE : '',
  ].join('\n\n')
  if (project.runner === 'vitest') {
    const setup = project.msw ? "\n  test: { setupFiles: ['./test/msw-setup.ts'] }," : ''
    files['vitest.config.ts'] = [
      "import { agentTape } from '@agent-tape/vitest/plugin'",
      "import { defineConfig } from 'vitest/config'",
      '',
      'export default defineConfig({',
      `  plugins: [agentTape({ modelEndpoints: [process.env.FAKE_PROVIDER_URL]${interception} })],${setup}`,
      '})',
      '',
    ].join('\n')
    if (project.msw) {
      files['test/msw-setup.ts'] = [
        "import { tapeHandlers } from '@agent-tape/http/msw'",
        "import { HttpResponse, http } from 'msw'",
        "import { setupServer } from 'msw/node'",
        "import { afterAll } from 'vitest'",
        '',
        'const server = setupServer(',
        `  ...${handlers},`,
        "  http.get('https://accounts.internal.example/api/me', () => HttpResponse.json({ id: 'u_1', plan: 'pro' })),",
        ')',
        'server.listen()',
        'afterAll(() => server.close())',
        '',
      ].join('\n')
    }
    files['test/agent.test.ts'] = [
      "import { expect, it } from '@agent-tape/vitest'",
      "import OpenAI from 'openai'",
      uses('@anthropic-ai/sdk') ? "import Anthropic from '@anthropic-ai/sdk'" : '',
      uses('ai') ? "import { streamText } from 'ai'\nimport { createOpenAI } from '@ai-sdk/openai'" : '',
      '',
      `const ANSWER = '${ANSWER}'`,
      'const base = process.env.FAKE_PROVIDER_URL',
      '// Built at import time with no key of its own, as a quickstart does.',
      "const openai = new OpenAI({ baseURL: base + '/v1', maxRetries: 0 })",
      uses('@anthropic-ai/sdk') ? 'const anthropic = new Anthropic({ baseURL: base, maxRetries: 0 })' : '',
      '',
      tapes,
      '',
    ].join('\n')
  } else {
    const ext = project.esm ? 'mjs' : 'js'
    const agentTape = `{ modelEndpoints: [process.env.FAKE_PROVIDER_URL]${interception} }`
    files['jest.config.js'] = [
      'module.exports = {',
      "  preset: '@agent-tape/jest',",
      `  testEnvironmentOptions: { agentTape: ${agentTape} },`,
      project.msw ? `  setupFilesAfterEnv: ['<rootDir>/test/msw-setup.${ext}'],` : '',
      '}',
      '',
    ].join('\n')
    const load = (names: string, from: string) =>
      project.esm ? `import { ${names} } from '${from}'` : `const { ${names} } = require('${from}')`
    if (project.msw) {
      files[`test/msw-setup.${ext}`] = [
        load('tapeHandlers', '@agent-tape/http/msw'),
        load('HttpResponse, http', 'msw'),
        load('setupServer', 'msw/node'),
        '',
        'const server = setupServer(',
        `  ...${handlers},`,
        "  http.get('https://accounts.internal.example/api/me', () => HttpResponse.json({ id: 'u_1', plan: 'pro' })),",
        ')',
        'server.listen()',
        'afterAll(() => server.close())',
        '',
      ].join('\n')
    }
    files[`test/agent.test.${ext}`] = [
      project.esm ? "import OpenAI from 'openai'" : "const { OpenAI } = require('openai')",
      uses('@anthropic-ai/sdk') ? load('Anthropic', '@anthropic-ai/sdk') : '',
      '',
      `const ANSWER = '${ANSWER}'`,
      'const base = process.env.FAKE_PROVIDER_URL',
      "const openai = new OpenAI({ baseURL: base + '/v1', maxRetries: 0 })",
      uses('@anthropic-ai/sdk') ? 'const anthropic = new Anthropic({ baseURL: base, maxRetries: 0 })' : '',
      '',
      tapes,
      '',
    ].join('\n')
  }
  return files
}

/** The npm name of a published package folder. */
export function packageName(folder: Published): string {
  return `@agent-tape/${folder}`
}
