import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseCassette } from '@agent-tape/core'
import { tokens } from '@agent-tape/inspect'
import { beforeAll, expect, it } from 'vitest'
import { REPO_ROOT } from '../support/fixture-project.js'
import {
  RESEARCH_TURNS,
  runResearchAgent,
  runResponsesAgent,
  runWeatherAgent,
  weatherTurns,
} from './support/agents.js'
import { runBin } from './support/bin.js'
import { maskRun, runCli } from './support/cli.js'
import { recordCassette } from './support/record.js'

const root = mkdtempSync(join(tmpdir(), 'agent-tape-cli-show-'))
const CHAT = 'test/__cassettes__/weather.test.ts/paris.jsonl'
const ANTHROPIC = 'test/__cassettes__/research.test.ts/anthropic.jsonl'
const RESPONSES = 'test/__cassettes__/research.test.ts/responses.jsonl'
const JSON_CHAT = 'test/__cassettes__/weather.test.ts/paris-json.jsonl'
const LEAKY = 'test/__cassettes__/weather.test.ts/leaky.jsonl'

beforeAll(async () => {
  await recordCassette(root, CHAT, {
    reply: weatherTurns(['It is 18°C ', 'and raining.\n', 'Take an umbrella.']),
    run: (c) => runWeatherAgent(c, 'Weather in Paris?'),
    tape: { id: 'weather.test.ts > paris', env: { WEATHER_UNITS: 'metric' } },
  })
  await recordCassette(root, JSON_CHAT, {
    reply: weatherTurns(['It is 18°C and raining.']),
    run: (c) => runWeatherAgent(c, 'Weather in Paris?', false),
  })
  await recordCassette(root, ANTHROPIC, {
    reply: RESEARCH_TURNS,
    run: (c) => runResearchAgent(c, 'When was magnetic tape invented?'),
    tape: { id: 'research.test.ts > anthropic' },
  })
  await recordCassette(root, RESPONSES, {
    reply: RESEARCH_TURNS,
    run: (c) => runResponsesAgent(c, 'When was magnetic tape invented?'),
    tape: { id: 'research.test.ts > responses' },
  })
  // The user pasted an API key into the question: the stored input is redacted.
  await recordCassette(root, LEAKY, {
    reply: weatherTurns(['Done.']),
    run: (c) => runWeatherAgent(c, `Weather in Paris? My key is sk-proj-${'Zx9'.repeat(10)}`),
  })
})

/** The keys of a cassette's decisions, in order (they hash SDK headers, so they are read, not hard-coded). */
function keysOf(path: string): string[] {
  return parseCassette(readFileSync(join(root, path), 'utf8'), path).decisions.map((d) => d.key)
}

it('prints the timeline of a streamed OpenAI chat run: env read, tool call and assembled answer', async () => {
  const keys = keysOf(CHAT)
  const { code, stdout, stderr } = await runCli(['show', CHAT], root)
  expect(stderr).toBe('')
  expect(code).toBe(0)
  expect(maskRun(stdout)).toBe(`${CHAT}
  test       weather.test.ts > paris
  recorded   <time> · agent-tape 0.1.0 · node <version>
  harness    not recorded
  env        WEATHER_UNITS
  decisions  4: 1 env read, 2 model requests, 1 tool call
  tokens     159 in / 23 out
  cost       $0.00063
  time       <n> ms recorded

#1  step 0  env read [WEATHER_UNITS]  ${keys[0]}  <n> ms
    WEATHER_UNITS set (sha256:<hash>)

#2  step 1  model request (gpt-4o)  ${keys[1]}  <n> ms
    request   openai-chat POST /v1/chat/completions · 2 messages · 1 tool
    last      user: "Weather in Paris?"
    answer    streamed · 200 · 61 in / 12 out tokens · finish tool_calls
    call      get_weather {"city":"Paris"}

#3  step 1  tool "get_weather"  ${keys[2]}  <n> ms
    args      {"city":"Paris"}
    result    {"city":"Paris","tempC":18,"sky":"light rain","units":"metric"}

#4  step 2  model request (gpt-4o)  ${keys[3]}  <n> ms
    request   openai-chat POST /v1/chat/completions · 4 messages · 1 tool
    last      tool: "{\\"city\\":\\"Paris\\",\\"tempC\\":18,\\"sky\\":\\"light rain\\",\\"units\\":\\"metric\\"}"
    answer    streamed · 200 · 98 in / 11 out tokens · finish stop
    text      It is 18°C and raining.
              Take an umbrella.
`)
})

it('assembles an Anthropic stream: text blocks and a tool_use built from input_json_delta', async () => {
  const keys = keysOf(ANTHROPIC)
  const { code, stdout } = await runCli(['show', ANTHROPIC], root)
  expect(code).toBe(0)
  expect(maskRun(stdout)).toBe(`${ANTHROPIC}
  test       research.test.ts > anthropic
  recorded   <time> · agent-tape 0.1.0 · node <version>
  harness    not recorded
  decisions  3: 2 model requests, 1 tool call
  tokens     130 in / 27 out
  cost       $0.00053
  time       <n> ms recorded

#1  step 1  model request (claude-sonnet-5)  ${keys[0]}  <n> ms
    request   anthropic-messages POST /v1/messages · 1 message · 1 tool
    last      user: "When was magnetic tape invented?"
    answer    streamed · 200 · 40 in / 18 out tokens · finish tool_use
    text      Let me search.
    call      search {"query":"magnetic tape 1928"}

#2  step 1  tool "search"  ${keys[1]}  <n> ms
    args      {"query":"magnetic tape 1928"}
    result    "3 results for magnetic tape 1928"

#3  step 2  model request (claude-sonnet-5)  ${keys[2]}  <n> ms
    request   anthropic-messages POST /v1/messages · 3 messages · 1 tool
    last      user: "tool_result: 3 results for magnetic tape 1928"
    answer    streamed · 200 · 90 in / 9 out tokens · finish end_turn
    text      Magnetic tape was invented in 1928.
`)
})

it('assembles an OpenAI Responses stream: output text deltas and function call arguments', async () => {
  const { code, stdout } = await runCli(['show', RESPONSES], root)
  expect(code).toBe(0)
  const timeline = maskRun(stdout)
  expect(timeline).toContain(`#1  step 1  model request (gpt-4.1)`)
  expect(timeline).toContain(`    request   openai-responses POST /v1/responses · 1 message · 1 tool
    last      user: "When was magnetic tape invented?"
    answer    streamed · 200 · 40 in / 18 out tokens · finish completed
    text      Let me search.
    call      search {"query":"magnetic tape 1928"}`)
  expect(timeline).toContain(`    last      function_call_output: "3 results for magnetic tape 1928"
    answer    streamed · 200 · 90 in / 9 out tokens · finish completed
    text      Magnetic tape was invented in 1928.`)
})

it('reads non-streamed JSON answers the same way', async () => {
  const { stdout } = await runCli(['show', JSON_CHAT], root)
  expect(maskRun(stdout)).toContain(`    answer    json · 200 · 61 in / 12 out tokens · finish tool_calls
    call      get_weather {"city":"Paris"}`)
  expect(maskRun(stdout)).toContain(`    answer    json · 200 · 98 in / 11 out tokens · finish stop
    text      It is 18°C and raining.`)
})

it('runs as the built bin: plain in a pipe or with NO_COLOR, and highlights redaction markers with FORCE_COLOR', () => {
  const plain = runBin(['show', LEAKY], root).stdout
  expect(plain).toContain('last      user: "Weather in Paris? My key is [REDACTED:openai-key]"')
  expect(plain).not.toContain('\x1b[')
  expect(runBin(['show', LEAKY], root, { NO_COLOR: '1' }).stdout).toBe(plain)
  const colored = runBin(['show', LEAKY], root, { FORCE_COLOR: '1' }).stdout
  expect(colored).toContain('My key is \x1b[1;30;43m[REDACTED:openai-key]\x1b[0m"')
  expect(colored.replace(/\x1b\[[0-9;]*m/g, '')).toBe(plain)
})

it('prints the timeline as JSON with --json', async () => {
  const { code, stdout } = await runCli(['show', '--json', CHAT], root)
  expect(code).toBe(0)
  const summary = JSON.parse(stdout)
  expect(summary.totals).toMatchObject({
    decisions: 4,
    kinds: { env: 1, llm: 2, tool: 1 },
    tokens: { input: 159, output: 23 },
  })
  // gpt-4o at $2.50 per million input tokens and $10 output, as of the recording.
  expect(summary.totals.cost).toMatchObject({
    tokens: { input: 159, output: 23 },
    models: [{ model: 'gpt-4o', api: 'openai-chat', decisions: 2, input: 159, output: 23 }],
    unpriced: [],
  })
  expect(summary.totals.cost.usd).toBeCloseTo(159 * 2.5e-6 + 23 * 10e-6, 10)
  expect(summary.decisions[1].model.answer).toMatchObject({
    status: 200,
    streamed: true,
    model: 'gpt-4o',
    toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}', id: expect.stringMatching(/^call_/) }],
    finishReason: 'tool_calls',
    usage: { input: 61, output: 12 },
  })
  expect(summary.decisions[3].model.answer.text).toBe('It is 18°C and raining.\nTake an umbrella.')
})

it('names the file and line of a damaged cassette and how to recover, with exit code 2', async () => {
  const damaged = 'test/__cassettes__/weather.test.ts/damaged.jsonl'
  const text = readFileSync(join(root, CHAT), 'utf8')
  writeFileSync(join(root, damaged), text.slice(0, text.length - 40))
  const { code, stdout, stderr } = await runCli(['show', damaged], root)
  expect(code).toBe(2)
  expect(stdout).toBe('')
  expect(stderr).toBe(
    `[agent-tape] Cannot load cassette ${damaged} (line 5): the line is truncated (the file ends in the middle of a JSON line, as when a write is interrupted). Restore it from version control (git checkout -- ${damaged}), or delete it and re-record the test.\n`,
  )
})

it('rejects a missing file and unknown options with exit code 2', async () => {
  expect(await runCli(['show', 'nope.jsonl'], root)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      '[agent-tape] Invalid arguments for agent-tape show: nope.jsonl does not exist. Pass the path of a .jsonl cassette.\n',
  })
  expect(await runCli(['show', '--colour', CHAT], root)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      '[agent-tape] Invalid arguments for agent-tape show: unknown option --colour; valid options are --json, --full, --decision (-d), --help (-h). Run agent-tape show --help for usage.\n',
  })
})

/** Runs the CLI as on a terminal `columns` wide that has no colours (so line lengths are visible ones). */
const onTerminal = (args: string[], columns: number) =>
  runCli(args, root, {}, { isTTY: true, columns, hasColors: () => false })

it('fits the timeline to an 80-column terminal, and keeps whole lines in a pipe', async () => {
  const long = `Weather in Paris? ${'Tell me everything about the forecast, hour by hour. '.repeat(6)}`
  const path = 'test/__cassettes__/weather.test.ts/long.jsonl'
  await recordCassette(root, path, { reply: weatherTurns(['Rain.']), run: (c) => runWeatherAgent(c, long) })
  const terminal = await onTerminal(['show', path], 80)
  expect(terminal.code).toBe(0)
  for (const line of terminal.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
  // The last message's preview is cut to the width; --full or --decision show it whole.
  expect(terminal.stdout).toContain('user: "Weather in Paris? Tell me everything')
  const piped = await runCli(['show', path], root)
  expect(Math.max(...piped.stdout.split('\n').map((l) => l.length))).toBeGreaterThan(120)
  // In a pipe, as docs/cli.md says, lines stay whole: the last message is not cut at any length.
  expect(piped.stdout).toContain(`user: ${JSON.stringify(long)}`)
  expect(piped.stdout).not.toContain('…')
  // verify and diff fit too.
  const verify = await onTerminal(['verify', '--root', root, path, CHAT], 60)
  for (const line of verify.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(60)
})

it('shows one decision whole with --decision: the full request, every message, and the answer', async () => {
  const question = `Weather in Paris? ${'x'.repeat(400)}`
  const path = 'test/__cassettes__/weather.test.ts/whole.jsonl'
  await recordCassette(root, path, {
    reply: weatherTurns(['Rain.']),
    run: (c) => runWeatherAgent(c, question),
  })
  const whole = await runCli(['show', '--decision', '2', path], root)
  expect(whole.code, whole.stderr).toBe(0)
  expect(whole.stdout).toMatch(/^#2 {2}step 1 {2}model request \(gpt-4o\)/)
  // The message list, whole, as recorded.
  expect(whole.stdout).toContain(`"content": "${question}"`)
  expect(whole.stdout).toContain('    out')
  const json = JSON.parse((await runCli(['show', '-d', '2', '--json', path], root)).stdout)
  expect(json.seq).toBe(2)
  expect(json.in.body.messages.at(-1).content).toBe(question)
  const missing = await runCli(['show', '--decision', '9', path], root)
  expect(missing.code).toBe(2)
  expect(missing.stderr).toContain(
    '--decision 9: test/__cassettes__/weather.test.ts/whole.jsonl has decisions #1 to #',
  )
  // What is not a number is told so, not answered with the range.
  for (const value of ['x', '2.5', '-1', '', 'two']) {
    const bad = await runCli(['show', '--decision', value, path], root)
    expect(bad.code, value).toBe(2)
    expect(bad.stderr, value).toMatch(
      new RegExp(
        `^\\[agent-tape\\] Invalid arguments for agent-tape show: --decision ${value.replace('.', '\\.')} is not a number\\. Give the number of a decision: test/__cassettes__/weather\\.test\\.ts/whole\\.jsonl has decisions #1 to #\\d+\\.\\n$`,
      ),
    )
  }
  // The number as show prints it is accepted.
  expect((await runCli(['show', '-d', '#2', path], root)).stdout).toMatch(/^#2 {2}step 1/)
})

it('prints counts of a thousand and more grouped, as the run summary does: one format everywhere', async () => {
  // The support agent's committed run, whose replay the run summary reports as
  // "tokens replayed instead of spent: 1,152 (1,080 in, 72 out)".
  const example = join(REPO_ROOT, 'examples/support-agent/test/__cassettes__/agent.test.ts/issue-412.jsonl')
  const shown = await runCli(['show', example], root)
  expect(shown.code, shown.stderr).toBe(0)
  expect(shown.stdout).toContain('\n  tokens     1,080 in / 72 out\n')
  expect(shown.stdout).not.toMatch(/\b\d{4,} (?:in|out|ms|tokens)\b/)
  // diff and the view read token counts through the same function.
  const diff = await runCli(['diff', example, example], root)
  expect(diff.code).toBe(0)
  expect(tokens({ input: 1080, output: 72 })).toBe('1,080 in / 72 out')
  expect(tokens({ input: 1_234_567, output: 999 })).toBe('1,234,567 in / 999 out')
})
