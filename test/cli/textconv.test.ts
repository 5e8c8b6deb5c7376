import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import type { Turn } from '@agent-tape/fake-provider'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import { beforeAll, expect, it } from 'vitest'
import { BIN } from './support/bin.js'
import { maskRun, runCli } from './support/cli.js'
import { type Clients, recordCassette } from './support/record.js'

// A run recorded, committed and re-recorded in a real git checkout, read through the diff
// driver `agent-tape setup-git` sets up: git runs the built bin as the project's own
// node_modules/.bin/agent-tape, as it would in a user's project.

const CASSETTE = 'test/__cassettes__/weather.test.ts/three-cities.jsonl'
const SYSTEM = 'You answer questions about the weather in cities. Call get_weather once for each city.'
const SKIES = { Paris: 'light rain', Lyon: 'cloudy', Nice: 'sunny' }
const SECRET = `sk-proj-${'Qw7'.repeat(12)}`

const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
]

/** A city a step, then the answer: tool calls streamed at steps 1 to 3. */
const TURNS: Turn[] = [
  ...Object.keys(SKIES).map((city, i) => ({
    toolCalls: [{ name: 'get_weather', args: { city } }],
    usage: { inputTokens: 60 + 30 * i, outputTokens: 12 },
  })),
  {
    text: ['Rain in Paris, ', 'clouds in Lyon, ', 'sun in Nice.'],
    usage: { inputTokens: 160, outputTokens: 11 },
  },
]

/** A streaming tool loop on the real `openai` SDK; the system prompt and the skies are what a re-record changes. */
async function runCitiesAgent({ openai, tape }: Clients, system: string, skies: Record<string, string>) {
  const tools = tape.tools({ get_weather: ({ city }: { city: string }) => ({ city, sky: skies[city] }) })
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: system },
    { role: 'user', content: 'Weather in Paris, Lyon and Nice?' },
  ]
  for (let step = 0; step < 5; step++) {
    const message = await openai.chat.completions
      .stream({ model: 'gpt-4o', messages, tools: TOOLS, stream_options: { include_usage: true } })
      .finalMessage()
    messages.push(message as ChatCompletionMessageParam)
    if (!message.tool_calls?.length) return message.content
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue
      const result = await tools.get_weather(JSON.parse(call.function.arguments))
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
    }
  }
  throw new Error('step budget exhausted')
}

let root: string
/** What the recordings, the setup and git printed, read by the tests below. */
const out = { v1: '', setup: '', attributes: '', config: '', again: '', diff: '', log: '', show: '' }

function git(...args: string[]): string {
  const result = spawnSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    // Nothing from the machine's git config; the bin's `#!/usr/bin/env node` finds this node.
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
    },
  })
  if (result.status !== 0)
    throw new Error(`git ${args.join(' ')} failed (${result.status}): ${result.stderr}`)
  return result.stdout
}

const record = (system: string, skies: Record<string, string>) =>
  recordCassette(root, CASSETTE, {
    reply: TURNS,
    run: (c) => runCitiesAgent(c, system, skies),
    tape: { id: 'weather.test.ts > three-cities' },
  })

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agent-tape-textconv-'))
  git('init', '-q', '-b', 'main')
  git('config', 'user.name', 'Ada Lovelace')
  git('config', 'user.email', 'ada@example.com')
  git('config', 'commit.gpgsign', 'false')
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(BIN, join(root, 'node_modules', '.bin', 'agent-tape'))
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n')
  out.v1 = await record(SYSTEM, SKIES)
  out.setup = (await runCli(['setup-git'], root)).stdout
  out.attributes = readFileSync(join(root, '.gitattributes'), 'utf8')
  out.config = git('config', '--local', '--list')
  out.again = (await runCli(['setup-git'], root)).stdout
  git('add', '.')
  git('commit', '-q', '-m', 'Record three cities')
  // The re-record: the system prompt edited (step 1), Nice's weather changed (step 3).
  await record(SYSTEM.replace('in cities', 'in French cities'), { ...SKIES, Nice: 'thunderstorms' })
  out.diff = git('diff')
  git('commit', '-q', '-am', 'Re-record three cities')
  out.log = git('log', '-p', '-1')
  out.show = git('show', 'HEAD')
}, 30_000)

it('prints a cassette with streamed tool calls as a transcript, a fact a line', async () => {
  const { code, stdout, stderr } = await runCli(['textconv', CASSETTE], root)
  expect(stderr).toBe('')
  expect(code).toBe(0)
  // The second recording (the working tree's).
  expect(
    maskRun(stdout).replace(/^node {7}v.*$/m, 'node       <version>'),
  ).toBe(`agent-tape cassette (format 2, key scheme 1)
test       weather.test.ts > three-cities
recorded   <time>
model      gpt-4o
agent-tape 0.1.0
node       <version>
harness    not recorded
decisions  7: 4 model requests, 3 tool calls
tokens     430 in / 47 out
cost       $0.0015

step 1  model request (gpt-4o)
    request    openai-chat POST /v1/chat/completions
    param      model: "gpt-4o"
    param      stream_options: {"include_usage":true}
    param      stream: true
    tool       get_weather {
                 "type": "function",
                 "function": {
                   "name": "get_weather",
                   "description": "Current weather",
                   "parameters": {"type":"object","properties":{"city":{"type":"string"}}}
                 }
               }
    messages   1 to 2 of 2
    system     You answer questions about the weather in French cities.
               Call get_weather once for each city.
    user       Weather in Paris, Lyon and Nice?
    answer     streamed, status 200
    call       get_weather {"city":"Paris"}
    finish     tool_calls
    tokens     60 in / 12 out

step 1  tool "get_weather"
    args       {"city":"Paris"}
    result     {"city":"Paris","sky":"light rain"}

step 2  model request (gpt-4o)
    request    openai-chat POST /v1/chat/completions
    tools      get_weather (as before)
    messages   3 to 4 of 4 (1 to 2 as before)
    assistant  call get_weather {"city":"Paris"}
    tool       {"city":"Paris","sky":"light rain"}
    answer     streamed, status 200
    call       get_weather {"city":"Lyon"}
    finish     tool_calls
    tokens     90 in / 12 out

step 2  tool "get_weather"
    args       {"city":"Lyon"}
    result     {"city":"Lyon","sky":"cloudy"}

step 3  model request (gpt-4o)
    request    openai-chat POST /v1/chat/completions
    tools      get_weather (as before)
    messages   5 to 6 of 6 (1 to 4 as before)
    assistant  call get_weather {"city":"Lyon"}
    tool       {"city":"Lyon","sky":"cloudy"}
    answer     streamed, status 200
    call       get_weather {"city":"Nice"}
    finish     tool_calls
    tokens     120 in / 12 out

step 3  tool "get_weather"
    args       {"city":"Nice"}
    result     {"city":"Nice","sky":"thunderstorms"}

step 4  model request (gpt-4o)
    request    openai-chat POST /v1/chat/completions
    tools      get_weather (as before)
    messages   7 to 8 of 8 (1 to 6 as before)
    assistant  call get_weather {"city":"Nice"}
    tool       {"city":"Nice","sky":"thunderstorms"}
    answer     streamed, status 200
    text       Rain in Paris, clouds in Lyon, sun in Nice.
    finish     stop
    tokens     160 in / 11 out
`)
})

/** The lines a diff removes and adds, without its file headers. */
function changedLines(diff: string): string[] {
  return diff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line))
}

it('has git diff print the changed words of a re-record as transcript lines', () => {
  const lines = changedLines(out.diff)
  expect(lines).toContain('-    system     You answer questions about the weather in cities.')
  expect(lines).toContain('+    system     You answer questions about the weather in French cities.')
  expect(lines).toContain('-    result     {"city":"Nice","sky":"sunny"}')
  expect(lines).toContain('+    result     {"city":"Nice","sky":"thunderstorms"}')
  expect(lines).toContain('+    tool       {"city":"Nice","sky":"thunderstorms"}')
  // The recording time, and nothing else: keys, durations and ids are not printed.
  expect(lines.filter((line) => !/Nice|cities|recorded/.test(line))).toEqual([])
  // Hunk headers name the step a change is in.
  expect(out.diff).toMatch(/^@@ .* @@ step 1 {2}model request \(gpt-4o\)$/m)
  expect(out.diff).toMatch(/^@@ .* @@ step 3 {2}model request \(gpt-4o\)$/m)
  expect(out.diff).not.toMatch(/^[-+ ]\{"/m)
})

it('has git log -p and git show print the same transcript lines', () => {
  for (const output of [out.log, out.show]) {
    expect(output).toContain('Re-record three cities')
    expect(changedLines(output)).toEqual(changedLines(out.diff))
  }
})

it('sets up the repository once: a second run changes nothing and says so', () => {
  expect(out.setup).toBe(`.gitattributes  + **/__cassettes__/**/*.jsonl diff=agent-tape
git config      diff.agent-tape.textconv node_modules/.bin/agent-tape textconv
git config      diff.agent-tape.cachetextconv true
git config      diff.agent-tape.xfuncname ^step .*$

git diff, git log -p and git show now print cassettes as transcripts (git diff --no-textconv: the JSON).
Commit .gitattributes; in another clone, run agent-tape setup-git again.
`)
  expect(out.again).toBe(
    `Already set up in ${git('rev-parse', '--show-toplevel').trim()}: .gitattributes and the git config name the agent-tape diff driver (nothing changed).\n`,
  )
  expect(readFileSync(join(root, '.gitattributes'), 'utf8')).toBe(out.attributes)
  expect(git('config', '--local', '--list')).toBe(out.config)
})

it('names cassettes recorded outside the cassette folders, and refuses a folder outside git', async () => {
  mkdirSync(join(root, 'runs'))
  mkdirSync(join(root, 'my runs'))
  writeFileSync(join(root, 'runs', 'issue-412.jsonl'), out.v1)
  writeFileSync(join(root, 'runs', 'notes.jsonl'), '{"note":"not a cassette"}\n')
  writeFileSync(join(root, 'my runs', 'issue 7.jsonl'), out.v1)
  // A line that gives the driver with another attribute counts as there.
  writeFileSync(join(root, '.gitattributes'), `${out.attributes.replace(/agent-tape$/m, 'agent-tape -text')}`)
  const { stdout } = await runCli(['setup-git'], join(root, 'runs'))
  expect(stdout).toMatch(
    /^\.gitattributes {2}\+ "my runs\/\*\.jsonl" diff=agent-tape\n\.gitattributes {2}\+ runs\/\*\.jsonl diff=agent-tape\n\n/,
  )
  const attributes = readFileSync(join(root, '.gitattributes'), 'utf8')
  expect((await runCli(['setup-git'], root)).stdout).toMatch(/^Already set up in /)
  expect(readFileSync(join(root, '.gitattributes'), 'utf8')).toBe(attributes)
  expect(git('check-attr', 'diff', '--', 'runs/issue-412.jsonl', 'my runs/issue 7.jsonl', CASSETTE)).toBe(
    `runs/issue-412.jsonl: diff: agent-tape\nmy runs/issue 7.jsonl: diff: agent-tape\n${CASSETTE}: diff: agent-tape\n`,
  )
  git('checkout', '-q', '--', '.gitattributes')

  const outside = mkdtempSync(join(tmpdir(), 'agent-tape-no-git-'))
  const refused = await runCli(['setup-git'], outside)
  expect(refused.code).toBe(2)
  expect(refused.stderr).toMatch(
    /^\[agent-tape\] agent-tape setup-git cannot set up .*: it is not in a git checkout \(fatal: not a git repository.*\)\. Run it inside the git checkout whose cassettes git diff should read \(git init makes one\); nothing was written\.\n$/,
  )
})

it('diffs a damaged cassette as its text, after a one-line note', () => {
  const damaged = `${out.v1.split('\n').slice(0, 3).join('\n')}\n{"seq":3,"kind":"tool"\n`
  writeFileSync(join(root, CASSETTE), damaged)
  const diff = git('diff')
  git('checkout', '-q', '--', CASSETTE)
  expect(diff).toMatch(
    /^\+\[agent-tape textconv\] not read as a cassette \(line 4: .*\); its text follows as it is$/m,
  )
  expect(diff).toContain('+{"seq":3,"kind":"tool"')
  expect(diff).toContain('-step 1  tool "get_weather"')
})

it('masks a secret in a cassette as everything agent-tape prints', async () => {
  const leaky = out.v1.replace('"sky":"cloudy"', `"sky":"cloudy ${SECRET}"`)
  expect(leaky).toContain(SECRET)
  writeFileSync(join(root, 'leaky.jsonl'), leaky)
  writeFileSync(join(root, 'leaky-damaged.jsonl'), `${leaky}{`)
  for (const file of ['leaky.jsonl', 'leaky-damaged.jsonl']) {
    const { code, stdout } = await runCli(['textconv', file], root)
    expect(code).toBe(0)
    expect(stdout).toContain('cloudy')
    expect(stdout).not.toContain(SECRET.slice(0, 16))
  }
})

it('prints what docs/cli.md shows for setup-git and git diff', () => {
  const docs = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')
  const shown = (command: string) => {
    const block = new RegExp(`\\$ ${command}\\n([\\s\\S]*?)\`\`\``).exec(docs)
    if (!block) throw new Error(`docs/cli.md shows no output of ${command}`)
    return block[1]!
  }
  // What differs between two runs: the blobs' hashes, the recording times, the Node version.
  const mask = (text: string) =>
    maskRun(text)
      .replace(/^index [0-9a-f]+\.\.[0-9a-f]+/m, 'index <blob>..<blob>')
      .replace(/^( node {7})v.*$/m, '$1<version>')
  expect(shown('npx agent-tape setup-git')).toBe(out.setup)
  expect(mask(shown('git diff'))).toBe(mask(out.diff))
})
