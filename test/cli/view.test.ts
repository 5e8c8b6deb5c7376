import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, expect, it } from 'vitest'
import { runWeatherAgent, weatherTurns } from './support/agents.js'
import { runCli } from './support/cli.js'
import { recordCassette, replayDiverging } from './support/record.js'

const root = mkdtempSync(join(tmpdir(), 'agent-tape-cli-view-'))
const CASSETTE = 'test/__cassettes__/weather.test.ts/paris.jsonl'
let diverged: { message: string; run: string }

/** The data a page embeds, as its script reads it. */
function data(html: string) {
  const json = /<script type="application\/json" id="agent-tape-data">([\s\S]*?)<\/script>/.exec(html)?.[1]
  return JSON.parse(json!) as {
    kind: string
    sides: { role: string; cards: { label: string }[] }[]
    rows?: { verdict: string }[]
    verdict?: string
  }
}

beforeAll(async () => {
  mkdirSync(join(root, 'node_modules'))
  await recordCassette(root, CASSETTE, {
    reply: weatherTurns(['It is 18°C ', 'and raining.']),
    run: (c) => runWeatherAgent(c, 'Weather in Paris?'),
    tape: { id: 'test/weather.test.ts > paris', env: { WEATHER_UNITS: 'metric' } },
  })
  diverged = await replayDiverging(
    root,
    { file: 'test/weather.test.ts', name: 'paris' },
    (c) => runWeatherAgent(c, 'Weather in Paris and Lyon?'),
    { WEATHER_UNITS: 'metric' },
  )
})

/** What view prints for a page of the project: its file:// URL, which a terminal or browser opens as it is. */
function url(path: string): string {
  return pathToFileURL(join(root, path)).href
}

it('writes the page of one run beside the project cache and prints its file:// URL', async () => {
  const result = await runCli(['view', CASSETTE], root)
  const path = 'node_modules/.cache/agent-tape/views/test/__cassettes__/weather.test.ts/paris.html'
  expect(result).toEqual({ code: 0, stdout: `${url(path)}\n`, stderr: '' })
  const html = readFileSync(join(root, path), 'utf8')
  expect(html).toMatch(/^<!doctype html>/)
  const page = data(html)
  expect(page.kind).toBe('run')
  expect(page.sides.map((s) => s.role)).toEqual(['recording'])
  expect(page.sides[0]!.cards.map((c) => c.label)).toEqual([
    'env read [WEATHER_UNITS]',
    'model request (gpt-4o)',
    'tool "get_weather"',
    'model request (gpt-4o)',
  ])
})

it('writes two recordings side by side where -o says', async () => {
  const result = await runCli(['view', CASSETTE, CASSETTE, '-o', 'pages/same.html'], root)
  expect(result).toEqual({ code: 0, stdout: `${url('pages/same.html')}\n`, stderr: '' })
  const page = data(readFileSync(join(root, 'pages/same.html'), 'utf8'))
  expect(page.kind).toBe('compare')
  expect(page.rows!.every((r) => r.verdict === 'same')).toBe(true)
  expect(page.verdict).toBe('4 → 4 decisions: 0 changed, 0 added, 0 removed, 4 unchanged')
})

it('opens the run a replay kept with the command its miss report prints', async () => {
  expect(diverged.message, diverged.message).toContain('  view      npx')
  const command = /\n {2}view {6}npx --no-install agent-tape view (\S+) --run (\S+)\n/.exec(diverged.message)
  expect(command?.slice(1)).toEqual([CASSETTE, diverged.run])
  expect(diverged.run).toBe(
    'node_modules/.cache/agent-tape/runs/test/__cassettes__/weather.test.ts/paris.jsonl',
  )
  const result = await runCli(['view', CASSETTE, '--run', diverged.run], root)
  const page = 'node_modules/.cache/agent-tape/views/test/__cassettes__/weather.test.ts/paris.run.html'
  expect(result).toEqual({ code: 0, stdout: `${url(page)}\n`, stderr: '' })
  const view = data(readFileSync(join(root, page), 'utf8'))
  expect(view.sides.map((s) => s.role)).toEqual(['recording', 'run'])
  expect(view.rows!.map((r) => r.verdict)).toEqual(['same', 'missed', 'not reached', 'not reached'])
  expect(view.verdict).toBe(
    'diverged at decision #2 (step 1): 1 the same, 1 missed, 0 changed, 0 added, 2 not reached of 4 recorded',
  )
})

it('refuses a second cassette together with --run, and a file that does not exist', async () => {
  expect(await runCli(['view', CASSETTE, CASSETTE, '--run', diverged.run], root)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      '[agent-tape] Invalid arguments for agent-tape view: give either a second cassette or --run <file>, not both. Run agent-tape view --help for usage.\n',
  })
  expect(await runCli(['view', 'missing.jsonl'], root)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      '[agent-tape] Invalid arguments for agent-tape view: missing.jsonl does not exist. Pass the path of a .jsonl cassette.\n',
  })
})

it.runIf(process.platform === 'linux')('opens the page with the platform opener when asked', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'agent-tape-opener-'))
  const log = join(bin, 'opened.txt')
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > "${log}"\n`)
  chmodSync(join(bin, 'xdg-open'), 0o755)
  const result = await runCli(['view', CASSETTE, '-o', 'opened.html', '--open'], root, { PATH: bin })
  expect(result).toEqual({ code: 0, stdout: `${url('opened.html')}\n`, stderr: '' })
  await expect.poll(() => existsSync(log) && readFileSync(log, 'utf8')).toBe(`${join(root, 'opened.html')}\n`)
  const missing = await runCli(['view', CASSETTE, '-o', 'opened.html', '--open'], root, { PATH: root })
  expect(missing.code).toBe(0)
  expect(missing.stderr).toBe(
    `Could not open the page with xdg-open (spawn xdg-open ENOENT); open ${join(root, 'opened.html')} in a browser.\n`,
  )
})
