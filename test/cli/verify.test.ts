import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createGitHarness } from '@agent-tape/core/node'
import { beforeAll, expect, it } from 'vitest'
import { RESEARCH_TURNS, runResearchAgent, runWeatherAgent, weatherTurns } from './support/agents.js'
import { runCli } from './support/cli.js'
import { recordCassette } from './support/record.js'

const root = mkdtempSync(join(tmpdir(), 'agent-tape-cli-verify-'))
const WEATHER = 'test/__cassettes__/weather.test.ts/paris.jsonl'
const RESEARCH = 'test/__cassettes__/research.test.ts/anthropic.jsonl'
const LOOP = 'src/agent/loop.ts'

function git(...args: string[]) {
  execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args],
    {
      cwd: root,
      stdio: 'pipe',
    },
  )
}

function write(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}

beforeAll(async () => {
  git('init', '-q')
  write(LOOP, 'export const loop = 1\n')
  write('.gitignore', 'node_modules\n')
  git('add', '.')
  git('commit', '-q', '-m', 'agent loop')
  await recordCassette(root, WEATHER, {
    reply: weatherTurns(['It is 18°C ', 'and raining.']),
    run: (c) => runWeatherAgent(c, 'Weather in Paris?'),
    // The weather service account id ends up in the tool result.
    tape: {
      env: { WEATHER_UNITS: 'acct-7f3a9c2e41d8' },
      harness: { provider: createGitHarness(root), paths: ['src/agent'] },
    },
  })
  await recordCassette(root, RESEARCH, {
    reply: RESEARCH_TURNS,
    run: (c) => runResearchAgent(c, 'When was magnetic tape invented?'),
  })
  // A damaged cassette inside node_modules is not ours to check.
  write('node_modules/some-lib/__cassettes__/x.test.ts/broken.jsonl', '{"agentTape":1,')
})

it('checks every cassette under the folder, one line each and a total, and exits 0 when all are fine', async () => {
  expect(await runCli(['verify'], root)).toEqual({
    code: 0,
    stderr: '',
    stdout: `ok    ${RESEARCH}  3 decisions
ok    ${WEATHER}  4 decisions

2 cassettes checked: 2 ok, 0 with problems.
`,
  })
})

it('fails on the value of a secret-like environment variable found in a cassette', async () => {
  const { code, stdout } = await runCli(['verify', 'test'], root, { WEATHER_API_KEY: 'acct-7f3a9c2e41d8' })
  expect(code).toBe(1)
  expect(stdout).toBe(`ok    ${RESEARCH}  3 decisions
FAIL  ${WEATHER}  secret in decision #3 (tool "get_weather", step 1) out.units: the value of $WEATHER_API_KEY (17 chars)
      secret in decision #4 (model request (gpt-4o), step 2) in.body.messages[3].content: the value of $WEATHER_API_KEY (17 chars)

2 cassettes checked: 1 ok, 1 with problems.
`)
})

it('accepts values that only look like secrets with --allow-secret', async () => {
  const env = { WEATHER_API_KEY: 'acct-7f3a9c2e41d8' }
  const { code, stdout } = await runCli(
    ['verify', '-q', '--allow-secret', 'acct-7f3a9c2e41d8', 'test'],
    root,
    env,
  )
  expect({ code, stdout }).toEqual({ code: 0, stdout: '2 cassettes checked: 2 ok, 0 with problems.\n' })
})

it('fails on a damaged cassette with the line and how to recover', async () => {
  const damaged = 'test/__cassettes__/research.test.ts/damaged.jsonl'
  const lines = readFileSync(join(root, RESEARCH), 'utf8').split('\n')
  write(damaged, [lines[0], lines[2], lines[1], ''].join('\n'))
  try {
    const { code, stdout } = await runCli(['verify', '--quiet'], root)
    expect(code).toBe(1)
    expect(
      stdout,
    ).toBe(`FAIL  ${damaged}  line 2: expected decision seq 1, found 2 (lines were removed or reordered). Restore it from version control (git checkout -- ${damaged}), or delete it and re-record the test.

3 cassettes checked: 2 ok, 1 with problems.
`)
  } finally {
    rmSync(join(root, damaged))
  }
})

it('warns when the harness code changed since the recording, and fails with --strict', async () => {
  write(LOOP, 'export const loop = 2\n')
  try {
    const warn = await runCli(['verify', WEATHER], root)
    expect(warn.code).toBe(0)
    expect(warn.stdout).toMatch(
      /^warn {2}test\/__cassettes__\/weather\.test\.ts\/paris\.jsonl {2}stale harness: the code under src\/agent differs from the recording \(recorded at commit [0-9a-f]{12}, now [0-9a-f]{12} \(the working tree has uncommitted changes there\)\); re-record it, or check that the recording still describes the code\n\n1 cassette checked: 0 ok, 1 with warnings, 0 with problems\.\n$/,
    )
    const strict = await runCli(['verify', '--strict', WEATHER], root)
    expect(strict.code).toBe(1)
    expect(strict.stdout).toContain('FAIL  test/__cassettes__/weather.test.ts/paris.jsonl  stale harness:')
  } finally {
    write(LOOP, 'export const loop = 1\n')
  }
})

it('warns about a temporary file left by an interrupted write', async () => {
  const leftover = 'test/__cassettes__/weather.test.ts/.tape-tmp-paris.jsonl-4242-0a1b2c3d'
  write(leftover, '{"agentTape":1')
  try {
    const { code, stdout } = await runCli(['verify', '-q'], root)
    expect(code).toBe(0)
    expect(stdout).toBe(`warn  ${leftover}  a temporary file left by an interrupted cassette write; delete it

2 cassettes checked: 2 ok, 0 with problems; 1 leftover temporary file.
`)
  } finally {
    rmSync(join(root, leftover))
  }
})

it('prints JSON with --json', async () => {
  const report = JSON.parse((await runCli(['verify', '--json'], root)).stdout)
  expect(report.totals).toEqual({ cassettes: 2, ok: 2, warn: 0, fail: 0, leftovers: 0 })
  expect(report.checks[1]).toEqual({ path: WEATHER, status: 'ok', problems: [], warnings: [], decisions: 4 })
})

it('exits 2 on a missing path or an unknown option', async () => {
  expect(await runCli(['verify', 'tests'], root)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      '[agent-tape] Invalid arguments for agent-tape verify: tests does not exist. Run agent-tape verify --help for usage.\n',
  })
  expect(await runCli(['verify', '--stict'], root)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      '[agent-tape] Invalid arguments for agent-tape verify: unknown option --stict (did you mean --strict?); valid options are --strict, --root, --ignore, --allow-secret, --json, --quiet (-q), --help (-h). Run agent-tape verify --help for usage.\n',
  })
})

it("judges a monorepo package's harness from that package's folder, wherever verify runs", async () => {
  const pkg = 'packages/shop'
  const cassette = `${pkg}/test/__cassettes__/shop.test.ts/order.jsonl`
  write(`${pkg}/package.json`, '{"name":"shop"}\n')
  write(`${pkg}/src/agent/loop.ts`, 'export const shop = 1\n')
  git('add', '.')
  git('commit', '-q', '-m', 'shop package')
  try {
    await recordCassette(root, cassette, {
      reply: weatherTurns(['Ordered.']),
      run: (c) => runWeatherAgent(c, 'Order a coffee.'),
      // Recorded by the package's own runner: harness paths relative to the package.
      tape: { harness: { provider: createGitHarness(join(root, pkg)), paths: ['src/agent'] } },
    })
    const fromRoot = await runCli(['verify', cassette], root)
    expect(fromRoot.stdout).toBe(
      `ok    ${cassette}  4 decisions\n\n1 cassette checked: 1 ok, 0 with problems.\n`,
    )
    const fromPackage = await runCli(['verify', 'test'], join(root, pkg))
    expect(fromPackage.stdout).toContain('1 cassette checked: 1 ok, 0 with problems.')
    // The package's code changes: the package's cassette is stale, judged from the root too.
    write(`${pkg}/src/agent/loop.ts`, 'export const shop = 2\n')
    expect((await runCli(['verify', cassette], root)).stdout).toContain(
      'stale harness: the code under src/agent differs',
    )
  } finally {
    rmSync(join(root, 'packages'), { recursive: true, force: true })
    git('add', '-A')
    git('commit', '-q', '-m', 'remove the shop package')
  }
})

it('skips the paths given with --ignore, such as deliberately damaged fixtures', async () => {
  const damaged = 'test/fixtures/__cassettes__/damaged.test.ts/bad.jsonl'
  write(damaged, '{"agentTape":1,')
  try {
    expect((await runCli(['verify'], root)).code).toBe(1)
    const ignored = await runCli(['verify', '--ignore', 'fixtures'], root)
    expect(ignored.code).toBe(0)
    expect(ignored.stdout).not.toContain('damaged')
    expect((await runCli(['verify', '--ignore', 'test/**/damaged.test.ts'], root)).code).toBe(0)
    expect((await runCli(['verify', '--ignore', 'test/other'], root)).code).toBe(1)
  } finally {
    rmSync(join(root, 'test/fixtures'), { recursive: true, force: true })
  }
})

it("skips what the project's package.json ignores, from wherever verify runs, but checks a file named on the command line", async () => {
  const damaged = 'test/fixtures/__cassettes__/damaged.test.ts/bad.jsonl'
  write(damaged, '{"agentTape":1,')
  const manifest = (settings: unknown) =>
    write('package.json', `${JSON.stringify({ name: 'shop', agentTape: settings }, null, 2)}\n`)
  try {
    manifest({ verify: { ignore: ['test/fixtures'] } })
    const ignored = await runCli(['verify', '--strict'], root)
    expect(ignored.code, ignored.stdout).toBe(0)
    expect(ignored.stdout).not.toContain('damaged')
    // From a subfolder, the patterns are still relative to the package.json that holds them.
    const below = await runCli(['verify'], join(root, 'test'))
    expect(below.code, below.stdout).toBe(0)
    expect(below.stdout).toContain('2 cassettes checked: 2 ok, 0 with problems.')
    // Named on the command line, the file is checked: the settings skip what a search finds.
    const named = await runCli(['verify', damaged], root)
    expect(named.code).toBe(1)
    expect(named.stdout).toContain(`FAIL  ${damaged}`)

    // A setting of the wrong shape fails, naming the file and the shape expected: a typo must not
    // check, or skip, other cassettes than the project meant.
    manifest({ verify: { ignore: 'test/fixtures' } })
    const wrong = await runCli(['verify'], root)
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain(
      `[agent-tape] Invalid agent-tape settings in ${join(root, 'package.json')}: "agentTape.verify.ignore" must be a list of path patterns, got "test/fixtures".`,
    )
    manifest({ verify: { ignores: ['test/fixtures'] } })
    expect((await runCli(['verify'], root)).stderr).toContain(
      '"agentTape.verify" has an unknown setting "ignores"; the only one is "ignore"',
    )
    manifest({ verify: {} })
    expect((await runCli(['verify'], root)).code).toBe(1)
  } finally {
    rmSync(join(root, 'test/fixtures'), { recursive: true, force: true })
    rmSync(join(root, 'package.json'), { force: true })
  }
})

it('flags a recorded time no recording gives (a warning, a problem with --strict), and fails a framing header replay would choke on', async () => {
  const lines = readFileSync(join(root, RESEARCH), 'utf8').trimEnd().split('\n')
  // The first decision edited, as someone editing the file would.
  const edited = (change: (d: EditedLine) => EditedLine) =>
    `${lines.map((line, i) => (i === 1 ? JSON.stringify(change(JSON.parse(line))) : line)).join('\n')}\n`
  const hostile = 'test/__cassettes__/hostile.test.ts/times.jsonl'
  write(
    hostile,
    edited((d) => {
      d.ms = 36_000_000
      d.out.headersAt = 36_000_001
      return d
    }),
  )
  try {
    const warn = await runCli(['verify', hostile], root)
    expect(warn.code).toBe(0)
    expect(warn.stdout).toBe(
      `warn  ${hostile}  implausible time in decision #1 (model request (claude-sonnet-5), step 1): it took 36,000,000 ms (10 h), longer than any call a test records (1 h); re-record it, or restore the file from version control\n\n1 cassette checked: 0 ok, 1 with warnings, 0 with problems.\n`,
    )
    const strict = await runCli(['verify', '--strict', hostile], root)
    expect(strict.code).toBe(1)
    write(
      hostile,
      edited((d) => {
        d.out.headers['content-length'] = '10737418240'
        // Every time is set, however fast or slow the recording ran: the headers at 1 ms, the
        // items from 9 ms on, the last one back at 5 ms, the call ended at 1 s.
        d.ms = 1000
        d.out.headersAt = 1
        d.out.body.sse.forEach((event: EditedLine, i: number) => {
          event.t = 9 + i
        })
        d.out.body.sse.at(-1).t = 5
        return d
      }),
    )
    const { code, stdout } = await runCli(['verify', hostile], root)
    expect(code).toBe(1)
    expect(stdout).toContain(
      `FAIL  ${hostile}  decision #1 (model request (claude-sonnet-5), step 1): its recorded response has a content-length header ("10737418240", 10 GB), which agent-tape never records`,
    )
    expect(stdout).toMatch(
      /implausible time in decision #1 \(.*\): streamed item \d+ came at 5 ms, before the item before it/,
    )
  } finally {
    rmSync(join(root, 'test/__cassettes__/hostile.test.ts'), { recursive: true, force: true })
  }
})

/** A decision line as JSON, edited as a person would: any field, at any depth. */
// biome-ignore lint/suspicious/noExplicitAny: a hand edit reaches into any field of the line
type EditedLine = Record<string, any>
