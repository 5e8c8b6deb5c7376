import { spawn, spawnSync } from 'node:child_process'
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { currentTape } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import type { Replier } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import { runWeatherAgent } from '../../cli/support/agents.js'
import { type Clients, recordCassette } from '../../cli/support/record.js'
import { SESSION_CLIENTS } from '../../providers/session-clients.js'
import { REPO_ROOT } from '../../support/fixture-project.js'
import { runTaped } from '../../support/tape-run.js'

/** The fake model of two cities asked about at once: weather first, then an answer. */
export const cityReply: Replier = ({ body }) => {
  const messages = (body.messages ?? []) as { role: string; content?: unknown }[]
  const city = /in (\w+)\?/.exec(String(messages.find((m) => m.role === 'user')?.content))?.[1] ?? 'Nowhere'
  if (!messages.some((m) => m.role === 'tool'))
    return { toolCalls: [{ name: 'get_weather', args: { city } }] }
  return { text: `${city}: 18°C and light rain.`, usage: { inputTokens: 90, outputTokens: 9 } }
}

/** A run with two lanes: two sub-agents asking about a city each, at the same time. */
export function recordLanes(root: string, cassettePath: string): Promise<string> {
  return recordCassette(root, cassettePath, {
    reply: cityReply,
    run: (c) =>
      Promise.all(
        ['Paris', 'Lyon'].map((city) =>
          c.tape.lane(city.toLowerCase(), () => runWeatherAgent(c, `Weather in ${city}?`)),
        ),
      ),
    tape: { id: 'test/trip.test.ts > two cities', env: { WEATHER_UNITS: 'metric' } },
  })
}

/**
 * Records a Realtime session of the SDK's `OpenAIRealtimeWS` into `<root>/<cassettePath>`: the
 * model asks for the weather in Paris over the session, the app's tool (`tape.tool`) answers,
 * and the model answers with it.
 */
export async function recordRealtimeSession(root: string, cassettePath: string): Promise<void> {
  const client = SESSION_CLIENTS.find((c) => c.api === 'openai-realtime')!
  const fake = await client.start()
  const undeclare = installHttpBoundary().addModelEndpoints(fake.endpoint)
  try {
    const lookup = (city: string) => currentTape()!.tool('get_weather', { city }, async () => ({ temp: 21 }))
    const run = await runTaped(
      createFileStore(root),
      cassettePath,
      'update',
      fake.weather('Be brief.', lookup),
    )
    if (run.failure ?? run.error) throw run.failure ?? run.error
  } finally {
    undeclare()
    await fake.close()
  }
}

const LOOKUP: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'lookup',
    description: 'Looks a record up by number',
    parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  },
}
/** A sentence of a lookup's result: a long run's tool results are this, ten times by default. */
export const FILLER =
  'The customer writes about invoice INV-412, charged twice on 2 May; we check the ledger. '

/** How a long run is made: the text of each record, and an edit of the prompt from a request on. */
export interface LongRunOptions {
  /** Each tool result is `Record <n>: ` and this (about 900 bytes by default). */
  record?: string
  /** From this request on (0-based), the system prompt says `report` where it said `summarize`. */
  editPromptFrom?: number
}

/** The fake model of a long run: a lookup per request until `steps - 1` records are seen, then an answer. */
export function longRunReply(steps: number): Replier {
  return ({ body }) => {
    const seen = ((body.messages ?? []) as { role: string }[]).filter((m) => m.role === 'tool').length
    if (seen + 1 < steps) return { toolCalls: [{ name: 'lookup', args: { n: seen + 1 } }] }
    return { text: `Looked up ${seen} records.`, usage: { inputTokens: 1000, outputTokens: 8 } }
  }
}

/**
 * The agent of a long run, as the bench's: a tool loop of `steps` model requests on the real
 * `openai` SDK, each looking one record up, the history growing by a record a step; then an answer.
 */
export function runLongAgent(
  steps: number,
  { record = FILLER.repeat(10), editPromptFrom }: LongRunOptions = {},
) {
  return async ({ openai, tape }: Clients): Promise<void> => {
    const system = 'You look records up one by one and then summarize.'
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content: `Look up records 1 to ${steps - 1}.` },
    ]
    for (let step = 0; step < steps; step++) {
      if (step === editPromptFrom)
        messages[0] = { role: 'system', content: system.replace('summarize', 'report') }
      const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages, tools: [LOOKUP] })
      const message = completion.choices[0]!.message
      messages.push(message as ChatCompletionMessageParam)
      if (!message.tool_calls?.length) return
      for (const call of message.tool_calls) {
        if (call.type !== 'function') continue
        const { n } = JSON.parse(call.function.arguments) as { n: number }
        const content = await tape.tool('lookup', { n }, () => `Record ${n}: ${record}`)
        messages.push({ role: 'tool', tool_call_id: call.id, content })
      }
    }
  }
}

/** A long run recorded: `2 × steps - 1` decisions (a request and a lookup a step, then the answer). */
export function recordLongRun(
  root: string,
  cassettePath: string,
  steps: number,
  options: Omit<LongRunOptions, 'editPromptFrom'> & { test?: string } = {},
): Promise<string> {
  return recordCassette(root, cassettePath, {
    reply: longRunReply(steps),
    run: runLongAgent(steps, options),
    tape: { id: options.test ?? `test/long.test.ts > ${steps} steps` },
  })
}

const SUPPORT_AGENT = join(REPO_ROOT, 'examples/support-agent')
export const SUPPORT_CASSETTE = 'test/__cassettes__/agent.test.ts/issue-412.jsonl'

/**
 * The README's divergence: a copy of the support agent whose prompt was edited, replayed by
 * the real Vitest against its committed cassette. The replay misses at step 1; the runner kit
 * keeps the run under the copy's cache folder and the report names the view command.
 */
export async function divergeSupportAgent(dir: string): Promise<{ output: string; run: string }> {
  cpSync(SUPPORT_AGENT, dir, {
    recursive: true,
    filter: (src) => !relative(SUPPORT_AGENT, src).split('/').includes('node_modules'),
  })
  symlinkSync(join(SUPPORT_AGENT, 'node_modules'), join(dir, 'node_modules'), 'junction')
  // A checkout, so that the run's header names the harness it ran, with the edit uncommitted.
  const git = (...args: string[]) =>
    spawnSync('git', args, {
      cwd: dir,
      stdio: 'ignore',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'test',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 'test',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    })
  git('init', '-q')
  git('add', '.')
  git('commit', '-qm', 'support agent')
  const agent = join(dir, 'src/agent.ts')
  const prompt = 'refund only the duplicate payment, never the original'
  const source = readFileSync(agent, 'utf8')
  if (!source.includes(prompt))
    throw new Error(`examples/support-agent/src/agent.ts no longer says "${prompt}"`)
  writeFileSync(agent, source.replace(prompt, 'refund what they were charged'))
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(CI|VITEST|npm_|AGENT_TAPE_|GITHUB_)/.test(k)),
  )
  const output = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run'], {
      cwd: dir,
      env: { ...env, NO_COLOR: '1', AGENT_TAPE_MODE: 'replay', AGENT_TAPE_CACHE_DIR: '.cache' },
    })
    let text = ''
    child.stdout.on('data', (d) => (text += d))
    child.stderr.on('data', (d) => (text += d))
    child.on('close', () => resolve(text))
  })
  const run = / {2}view {6}npx --no-install agent-tape view \S+ --run (\S+)/.exec(output)?.[1]
  if (!run) throw new Error(`the support agent did not diverge with a view command:\n${output}`)
  return { output, run }
}
