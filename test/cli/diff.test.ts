import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseCassette, serializeCassette } from '@agent-tape/core'
import { beforeAll, expect, it } from 'vitest'
import { runWeatherAgent, weatherTurns } from './support/agents.js'
import { runCli } from './support/cli.js'
import { recordCassette, replayDiverging } from './support/record.js'

const root = mkdtempSync(join(tmpdir(), 'agent-tape-cli-diff-'))
const test = { id: 'weather.test.ts > paris', env: { WEATHER_UNITS: 'metric' } }

beforeAll(async () => {
  await recordCassette(root, 'before.jsonl', {
    reply: weatherTurns(['It is 18°C ', 'and raining.']),
    run: (c) => runWeatherAgent(c, 'Weather in Paris?'),
    tape: test,
    seed: 'first recording',
  })
  // The same run recorded again: the provider hands out new ids, timings differ.
  await recordCassette(root, 'again.jsonl', {
    reply: weatherTurns(['It is 18°C ', 'and raining.']),
    run: (c) => runWeatherAgent(c, 'Weather in Paris?'),
    tape: test,
    seed: 'second recording',
  })
  // After a prompt edit the model checks a second city before answering.
  await recordCassette(root, 'after.jsonl', {
    reply: [
      {
        toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }],
        usage: { inputTokens: 64, outputTokens: 12 },
      },
      {
        toolCalls: [{ name: 'get_weather', args: { city: 'Lyon' } }],
        usage: { inputTokens: 98, outputTokens: 12 },
      },
      {
        text: ['Paris: 18°C and rain; ', 'Lyon: 18°C and rain.'],
        usage: { inputTokens: 130, outputTokens: 16 },
      },
    ],
    run: (c) => runWeatherAgent(c, 'Weather in Paris and Lyon?'),
    tape: test,
    seed: 'third recording',
  })
})

it('finds no difference between two recordings of the same run (ids, times and request ids ignored)', async () => {
  expect(await runCli(['diff', 'before.jsonl', 'again.jsonl'], root)).toEqual({
    code: 0,
    stderr: '',
    stdout: `--- before.jsonl
+++ again.jsonl

= #1  step 0  env read [WEATHER_UNITS]
= #2  step 1  model request (gpt-4o)
= #3  step 1  tool "get_weather"
= #4  step 2  model request (gpt-4o)

4 → 4 decisions: 0 changed, 0 added, 0 removed, 4 unchanged
again: 4 → 4 decisions, 182 → 182 tokens, $0.00063 → $0.00063
`,
  })
})

it('finds no difference when only the times the decisions began differ', async () => {
  const read = (file: string) => parseCassette(readFileSync(join(root, file), 'utf8'), file)
  for (const file of ['before.jsonl', 'again.jsonl']) {
    const decisions = read(file).decisions
    // A sequential run: each decision began after the one before it ended (to the millisecond).
    decisions.forEach((d, i) => {
      expect(Number.isInteger(d.at), `${file} #${d.seq}`).toBe(true)
      if (i > 0)
        expect(d.at!, `${file} #${d.seq}`).toBeGreaterThanOrEqual(
          decisions[i - 1]!.at! + decisions[i - 1]!.ms - 1,
        )
    })
  }
  const again = read('again.jsonl')
  const later = { ...again, decisions: again.decisions.map((d) => ({ ...d, at: d.at! + 5000 })) }
  writeFileSync(join(root, 'later.jsonl'), serializeCassette(later))
  const { code, stdout } = await runCli(['diff', 'before.jsonl', 'later.jsonl'], root)
  expect(stdout).toContain('4 → 4 decisions: 0 changed, 0 added, 0 removed, 4 unchanged')
  expect(code).toBe(0)
})

it('shows changed inputs field by field, changed answers, and the decisions a re-record added', async () => {
  const { code, stdout, stderr } = await runCli(['diff', 'before.jsonl', 'after.jsonl'], root)
  expect(stderr).toBe('')
  expect(code).toBe(1)
  expect(
    stdout.replace(/llm:[0-9a-f]{16}/g, 'llm:<key>').replace(/tool:[0-9a-f]{16}/g, 'tool:<key>'),
  ).toBe(`--- before.jsonl
+++ after.jsonl

= #1  step 0  env read [WEATHER_UNITS]
~ #2  step 1  model request (gpt-4o)
    key    llm:<key> → llm:<key>
    in     body.messages[1].content: "Weather in Paris?" → "Weather in Paris and Lyon?"  (also #4)
    out    tokens: 61 in / 12 out → 64 in / 12 out
= #3  step 1  tool "get_weather"
~ #4  step 2  model request (gpt-4o)
    key    llm:<key> → llm:<key>
    in     the same change as #2
    out    text: "It is 18°C and raining." → ""
           tool call 1: (none) → get_weather {"city":"Lyon"}
           finish: stop → tool_calls
           tokens: 98 in / 11 out → 98 in / 12 out
+ #5  step 2  tool "get_weather"
    key    tool:<key>
    what   get_weather {"city":"Lyon"} → {"city":"Lyon","tempC":18,"sky":"light rain","units":"metric"}
+ #6  step 3  model request (gpt-4o)
    key    llm:<key>
    what   "Paris: 18°C and rain; Lyon: 18°C and rain." · finish stop

4 → 6 decisions: 2 changed, 2 added, 0 removed, 2 unchanged
after: 4 → 6 decisions, 182 → 332 tokens (+82%), $0.00063 → $0.0011
`)
})

it('reports removed decisions when compared the other way round, and JSON with --json', async () => {
  const reverse = await runCli(['diff', 'after.jsonl', 'before.jsonl'], root)
  expect(reverse.code).toBe(1)
  expect(reverse.stdout).toContain('- #5  step 2  tool "get_weather"')
  expect(reverse.stdout).toContain('6 → 4 decisions: 2 changed, 0 added, 2 removed, 2 unchanged')
  expect(reverse.stdout).toContain('before: 6 → 4 decisions, 332 → 182 tokens (-45%), $0.0011 → $0.00063')
  const json = JSON.parse((await runCli(['diff', '--json', 'before.jsonl', 'after.jsonl'], root)).stdout)
  expect(json.counts).toEqual({ unchanged: 2, changed: 2, added: 2, removed: 0 })
  // The numbers behind the re-record line: decisions, steps, tokens per model decision, the price.
  expect(json.cost.line).toBe('after: 4 → 6 decisions, 182 → 332 tokens (+82%), $0.00063 → $0.0011')
  expect(json.cost.a).toMatchObject({ decisions: 4, steps: 2, unpriced: [] })
  expect(json.cost.b.steps).toBe(3)
  expect(json.cost.b.usage.map((u: { model: string }) => u.model)).toEqual(['gpt-4o', 'gpt-4o', 'gpt-4o'])
  expect(json.cost.b.usd).toBeCloseTo(0.0011, 4)
  expect(json.entries[1].input).toEqual([
    {
      path: 'body.messages[1].content',
      type: 'changed',
      before: 'Weather in Paris?',
      after: 'Weather in Paris and Lyon?',
    },
  ])
})

it('needs exactly two cassettes', async () => {
  expect(await runCli(['diff', 'before.jsonl'], root)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      '[agent-tape] Invalid arguments for agent-tape diff: expected <a> <b>, got 1 argument. Run agent-tape diff --help for usage.\n',
  })
})

it('takes absolute paths, as the README review recipe passes them (git show … > /tmp/before.jsonl)', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'agent-tape-cli-outside-'))
  const before = join(outside, 'before.jsonl')
  copyFileSync(join(root, 'before.jsonl'), before)
  const diff = await runCli(['diff', before, 'again.jsonl'], root)
  expect(diff.stderr).toBe('')
  expect(diff.code).toBe(0)
  expect(diff.stdout.split('\n').slice(0, 2)).toEqual([`--- ${before}`, '+++ again.jsonl'])
  const show = await runCli(['show', before], root)
  expect(show.code).toBe(0)
  expect(show.stdout.split('\n')[0]).toBe(before)
  const verify = await runCli(['verify', before], root)
  expect(verify.code).toBe(0)
  expect(verify.stdout).toContain(`ok    ${before}`)
})

it('warns when the two cassettes record different tests', async () => {
  const other = readFileSync(join(root, 'after.jsonl'), 'utf8').replace(
    /"test":"[^"]*"/,
    '"test":"weather.test.ts > another-test"',
  )
  writeFileSync(join(root, 'other-test.jsonl'), other)
  const { stdout } = await runCli(['diff', 'before.jsonl', 'other-test.jsonl'], root)
  expect(stdout.split('\n')[2]).toMatch(
    /^warning: these are recordings of different tests \(".*" and "weather\.test\.ts > another-test"\)/,
  )
  expect((await runCli(['diff', 'before.jsonl', 'after.jsonl'], root)).stdout).not.toContain(
    'different tests',
  )
})

it('compares a recording with the run a replay kept: the request it missed has no answer, and what it never reached is said once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-cli-diff-run-'))
  mkdirSync(join(dir, 'node_modules'))
  const cassette = 'test/__cassettes__/weather.test.ts/paris.jsonl'
  await recordCassette(dir, cassette, {
    reply: weatherTurns(['It is 18°C ', 'and raining.']),
    run: (c) => runWeatherAgent(c, 'Weather in Paris?'),
    tape: { id: 'test/weather.test.ts > paris', env: { WEATHER_UNITS: 'metric' } },
  })
  const diverged = await replayDiverging(
    dir,
    { file: 'test/weather.test.ts', name: 'paris' },
    (c) => runWeatherAgent(c, 'Weather in Paris and Lyon?'),
    { WEATHER_UNITS: 'metric' },
  )
  const result = await runCli(['diff', cassette, diverged.run], dir)
  expect(result.code).toBe(1)
  expect(result.stdout).not.toContain('undefined')
  expect(result.stdout).toContain(
    '    out    answer: recorded → none (the run stopped here: no recorded decision answers this request)\n',
  )
  expect(result.stdout).toContain(
    '· #3 to #4  not reached: the run stopped at the request it missed, before these 2 recorded decisions\n',
  )
  expect(result.stdout).not.toMatch(/^- #/m)
  expect(result.stdout).toContain(
    '4 → 2 decisions: 1 changed, 0 added, 0 removed, 2 not reached, 1 unchanged',
  )
  // The other way round, nothing is a run: the recorded decisions the run lacks are added.
  const reversed = await runCli(['diff', diverged.run, cassette], dir)
  expect(reversed.stdout).not.toContain('undefined')
  expect(reversed.stdout).toContain('answer: none → recorded')
  expect(reversed.stdout).toMatch(/^\+ #3 /m)
})

it('says a header field one cassette lacks is absent, never undefined', async () => {
  const lines = readFileSync(join(root, 'before.jsonl'), 'utf8').split('\n')
  const header = JSON.parse(lines[0]!)
  const harness = {
    git: true,
    commit: '0123456789abcdef0123456789abcdef01234567',
    paths: ['src'],
    tree: '0123456789abcdef',
    dirty: false,
  }
  writeFileSync(
    join(root, 'with-harness.jsonl'),
    [JSON.stringify({ ...header, harness }), ...lines.slice(1)].join('\n'),
  )
  const added = await runCli(['diff', 'before.jsonl', 'with-harness.jsonl'], root)
  expect(added.code).toBe(1)
  expect(added.stdout).toContain(
    '\nheader\n    harness: (absent) → {"git":true,"paths":["src"],"tree":"0123456789abcdef","dirty":false}\n',
  )
  const removed = await runCli(['diff', 'with-harness.jsonl', 'before.jsonl'], root)
  expect(removed.stdout).toContain(
    '    harness: {"git":true,"paths":["src"],"tree":"0123456789abcdef","dirty":false} → (absent)\n',
  )
  for (const out of [added.stdout, removed.stdout]) expect(out).not.toContain('undefined')
})
