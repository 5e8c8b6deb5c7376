import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type CaptureSource, parseCassette } from '@agent-tape/core'
import type { FakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { JestProject } from '../jest/support/jest-project.js'
import { FixtureProject, REPO_ROOT, type RunResult } from '../support/fixture-project.js'
import { VitestProject } from '../vitest/support/vitest-project.js'
import { startCityModel } from './support/city-agent.js'

// A run captured in a production server, promoted into a test, green on replay in both runners:
// an Express server with an agent on the openai SDK, under 200 concurrent requests, capturing
// with keep: 'failed'; then `agent-tape promote` and the real Vitest and Jest on the project.

const APP = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/app')
const CLI = join(REPO_ROOT, 'packages/cli/dist/esm/bin.js')
const REQUESTS = 200

let provider: FakeProvider
let app: VitestProject
let captured: string[]
const servers: ChildProcess[] = []

beforeAll(async () => {
  provider = await startCityModel()
  const copy = new FixtureProject('capture-app', [APP])
  app = new VitestProject(copy)
  copy.dispose()
  const server = await startServer(app, {})
  const cities = Array.from({ length: REQUESTS }, (_, n) => `City-${n}`)
  const responses = await Promise.all(
    cities.map((city) =>
      fetch(`${server.url}/weather`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ city }),
      }).then(async (r) => [r.status, await r.json()] as const),
    ),
  )
  responses.forEach(([status, body], n) => {
    expect([status, body]).toEqual(
      n % 10 === 0
        ? [500, { error: `no forecast for City-${n}` }]
        : [200, { answer: `It is 14:05 in City-${n}, 18°C.`, steps: 3 }],
    )
  })
  const stats = await (await fetch(`${server.url}/stats`)).json()
  expect(stats).toMatchObject({ runs: REQUESTS, recorded: REQUESTS, failed: 20, written: 20, discarded: 180 })
  server.child.kill()
  captured = readdirSync(join(app.dir, 'captures')).sort()
}, 120_000)

afterAll(async () => {
  for (const child of servers) child.kill()
  app?.dispose()
  await provider?.close()
})

function startServer(
  project: FixtureProject,
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['server.js'], {
      cwd: project.dir,
      env: { ...process.env, FAKE_PROVIDER_URL: provider.url, OPENAI_API_KEY: 'sk-test-dummy', ...env },
    })
    servers.push(child)
    let out = ''
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    child.stdout.on('data', (d) => {
      out += d
      const port = /listening (\d+)/.exec(out)?.[1]
      if (port) resolve({ url: `http://127.0.0.1:${port}`, child, stderr: () => err })
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${err}`)))
  })
}

function promote(project: FixtureProject, args: string): Promise<RunResult> {
  return project.run(`"${process.execPath}" "${CLI}" promote ${args}`)
}

/** The environment of a CI replay, with no key: the model's server is up, and counts connections. */
const replay = () => ({ CI: 'true', FAKE_PROVIDER_URL: provider.url, OPENAI_API_KEY: '' })

it('keeps only the failed runs, one file each, each holding only its own run', () => {
  expect(captured).toHaveLength(20)
  const failed = new Set(Array.from({ length: 20 }, (_, i) => `City-${i * 10}`))
  for (const file of captured) {
    expect(file).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z_weather_[0-9a-z]{12}\.jsonl$/)
    const text = app.read(`captures/${file}`)
    const cassette = parseCassette(text, file)
    const source = cassette.header.source as CaptureSource
    const { city } = source.input as { city: string }
    expect(failed.delete(city)).toBe(true)
    expect(file).toContain(source.runId)
    expect(source.outcome).toEqual({
      ok: false,
      error: { name: 'Error', message: `no forecast for ${city}` },
    })
    // Three model requests, and a retry when a pooled connection was closed under the load.
    expect(cassette.decisions.length).toBeGreaterThanOrEqual(3)
    expect(cassette.decisions.every((d) => d.kind === 'llm')).toBe(true)
    expect(new Set([...text.matchAll(/time in (City-\d+)\?/g)].map((m) => m[1]))).toEqual(new Set([city]))
    expect(text).not.toContain('sk-test-dummy')
  }
  expect(failed.size).toBe(0)
})

it('promotes a captured run into a Vitest test that is green on replay with no network and no key', async () => {
  const file = `captures/${captured[0]}`
  const city = (
    (parseCassette(app.read(file), file).header.source as CaptureSource).input as { city: string }
  ).city
  const result = await promote(
    app,
    `${file} --name issue-412 --test test/agent.test.ts --entry src/agent.js#runAgent`,
  )
  expect(result.code, result.output).toBe(0)
  expect(result.stdout).toBe(
    [
      `Wrote test/__cassettes__/agent.test.ts/issue-412.jsonl (${parseCassette(app.read(file), file).decisions.length} decisions).`,
      'Wrote test/agent.test.ts with the test "issue-412".',
      '',
      "Run it (it replays, with no network and no API key): npx vitest run test/agent.test.ts -t '^issue-412$'",
      '',
    ].join('\n'),
  )
  const test = app.read('test/agent.test.ts')
  expect(test).toContain(
    "import { expect, it } from '@agent-tape/vitest'\nimport { runAgent } from '../src/agent.js'\n",
  )
  expect(test).toContain(
    `it.tape('issue-412', async () => {\n  const input: Parameters<typeof runAgent>[0] = {\n    "city": "${city}"\n  }\n`,
  )
  expect(test).toContain(`  await expect(runAgent(input)).rejects.toThrow('no forecast for ${city}')\n})\n`)
  const promoted = parseCassette(app.read('test/__cassettes__/agent.test.ts/issue-412.jsonl'), 'promoted')
  expect(promoted.header.test).toBe('test/agent.test.ts > issue-412')
  expect(promoted.header.source).toMatchObject({ kind: 'capture', input: { city } })

  const connections = provider.connections
  const run = await app.runTests('', replay())
  expect(run.code, run.output).toBe(0)
  expect(run.output).toMatch(/Tests\s+1 passed \(1\)/)
  expect(provider.connections).toBe(connections)
  // The test fails when the agent's prompt changes: the replay misses, it does not pass by chance.
  app.write(
    'src/agent.js',
    app.read('src/agent.js').replace('You answer questions about cities.', 'You answer.'),
  )
  const edited = await app.runTests('', replay())
  expect(edited.code).toBe(1)
  expect(edited.output).toContain('ReplayMiss')
  // The miss is the test's one failure, not again inside the failed rejects.toThrow around it.
  expect(edited.output.split(' FAIL  test/agent.test.ts > issue-412\n')).toHaveLength(2)
  expect(edited.output).not.toContain('to throw error including')
  app.write('src/agent.js', readFileSync(join(APP, 'src/agent.js'), 'utf8'))
  expect(provider.connections).toBe(connections)
}, 120_000)

it('promotes a captured run into a Jest test that is green on replay with no network and no key', async () => {
  const jest = new JestProject(app)
  try {
    jest.remove('vitest.config.ts')
    jest.remove('test/agent.test.ts')
    jest.write('package.json', JSON.stringify({ name: 'capture-app-jest', private: true }))
    jest.write(
      'jest.config.js',
      [
        "/** @type {import('jest').Config} */",
        'module.exports = {',
        "  preset: '@agent-tape/jest',",
        "  transform: { '\\\\.[jt]s$': ['babel-jest', { presets: ['@babel/preset-typescript'], plugins: ['@babel/plugin-transform-modules-commonjs'] }] },",
        "  testEnvironmentOptions: { agentTape: { modelEndpoints: [process.env.FAKE_PROVIDER_URL + '/v1'] } },",
        // The first tape of a run loads the recording machinery inside its test: slow on a busy machine.
        '  testTimeout: 30000,',
        '}',
        '',
      ].join('\n'),
    )
    const file = `captures/${captured[1]}`
    const result = await promote(
      jest,
      `${file} --name issue-412 --test test/agent.test.ts --entry src/agent.js#runAgent --force`,
    )
    expect(result.code, result.output).toBe(0)
    expect(result.stdout).toContain("npx jest test/agent.test.ts -t '^issue-412$'")
    const test = jest.read('test/agent.test.ts')
    expect(test.startsWith("import { runAgent } from '../src/agent'\n")).toBe(true)
    const connections = provider.connections
    const run = await jest.runTests('', replay())
    expect(run.code, run.output).toBe(0)
    expect(run.output).toMatch(/Tests:\s+1 passed, 1 total/)
    expect(provider.connections).toBe(connections)
  } finally {
    jest.dispose()
  }
}, 120_000)

it('refuses a file with a secret, a damaged file, one with no decisions, a name that has a cassette and a missing entry, writing nothing', async () => {
  const file = `captures/${captured[2]}`
  const text = app.read(file)
  const before = app.snapshot()
  const key = `sk-proj-${'Q9w8E7r6T5y4U3i2'.repeat(3)}`
  app.write('incident/secret.jsonl', text.replace('"input":{', `"input":{"token":"${key}",`))
  const lines = text.split('\n')
  app.write('incident/damaged.jsonl', `${lines.slice(0, 2).join('\n')}\n${lines[2]!.slice(0, 40)}`)
  app.write('incident/empty.jsonl', `${lines[0]}\n`)
  const snapshot = app.snapshot()

  const empty = await promote(
    app,
    'incident/empty.jsonl --name nothing --test test/nothing.test.ts --entry src/agent.js#runAgent',
  )
  expect(empty.code).toBe(2)
  expect(empty.stderr).toContain(
    'incident/empty.jsonl has a header and no decisions: the run crossed no boundary agent-tape records',
  )
  expect(empty.stderr).toContain('Nothing was written')

  const secret = await promote(
    app,
    'incident/secret.jsonl --name leak --test test/leak.test.ts --entry src/agent.js#runAgent',
  )
  expect(secret.code).toBe(1)
  expect(secret.stderr).toContain(
    "[agent-tape] Refusing to promote incident/secret.jsonl: the header's source.input.token holds an OpenAI-style API key (sk-p… (56 chars)), and a promoted cassette is committed with the test.",
  )
  expect(secret.stderr).toContain('Nothing was written')
  expect(secret.output).not.toContain(key)

  const damaged = await promote(
    app,
    'incident/damaged.jsonl --name broken --test test/broken.test.ts --entry src/agent.js#runAgent',
  )
  expect(damaged.code).toBe(2)
  expect(damaged.stderr).toContain(
    '[agent-tape] Cannot load cassette incident/damaged.jsonl (line 3): the line is truncated',
  )

  const taken = await promote(
    app,
    `${file} --name issue-412 --test test/agent.test.ts --entry src/agent.js#runAgent`,
  )
  expect(taken.code).toBe(2)
  expect(taken.stderr).toContain(
    'test/__cassettes__/agent.test.ts/issue-412.jsonl exists: the tape "issue-412" of test/agent.test.ts already has a cassette. Choose another --name, or pass --force to replace it. Nothing was written.',
  )

  const missing = await promote(
    app,
    `${file} --name other --test test/other.test.ts --entry src/agnet.js#runAgent`,
  )
  expect(missing.code).toBe(2)
  expect(missing.stderr).toContain('--entry names src/agnet.js, which does not exist')
  const unexported = await promote(
    app,
    `${file} --name other --test test/other.test.ts --entry src/agent.js#runAgnet`,
  )
  expect(unexported.code).toBe(2)
  expect(unexported.stderr).toContain('src/agent.js exports no runAgnet')

  expect(app.snapshot()).toEqual(snapshot)
  expect(Object.keys(snapshot).filter((f) => !(f in before))).toEqual([
    'incident/damaged.jsonl',
    'incident/empty.jsonl',
    'incident/secret.jsonl',
  ])
})

it('verify checks promoted cassettes and leaves the capture directory alone unless it is named; prune never touches it', async () => {
  const all = await app.run(
    `"${process.execPath}" "${join(REPO_ROOT, 'packages/cli/dist/esm/bin.js')}" verify --json`,
  )
  const checked = (JSON.parse(all.stdout) as { checks: { path: string }[] }).checks.map((c) => c.path)
  expect(checked).toContain('test/__cassettes__/agent.test.ts/issue-412.jsonl')
  expect(checked.filter((p) => p.startsWith('captures/'))).toEqual([])
  const named = await app.run(`"${process.execPath}" "${CLI}" verify captures --json`)
  expect((JSON.parse(named.stdout) as { totals: { cassettes: number } }).totals.cassettes).toBe(
    captured.length,
  )
  // (The runs a diverged replay kept, under the project's cache folder, are another matter.)
  rmSync(join(app.dir, '.agent-tape-cache'), { recursive: true, force: true })
  const pruned = await app.run(`"${process.execPath}" "${CLI}" prune`)
  expect(pruned.stdout).toBe('No obsolete cassettes.\n')
  expect(readdirSync(join(app.dir, 'captures'))).toHaveLength(captured.length)
  const shown = await app.run(`"${process.execPath}" "${CLI}" show captures/${captured[0]}`)
  expect(shown.stdout).toMatch(
    / {2}source {5}captured run "weather" \([0-9a-z]{12}\): failed, threw Error: no forecast for City-\d*0\n/,
  )
  expect(shown.stdout).toMatch(/ {2}input {6}\{"city":"City-\d*0"\}\n/)
})

it('a capture directory the server cannot write: one logged error, every request answered as before', async () => {
  app.write('blocked', '')
  const server = await startServer(app, { CAPTURE_DIR: 'blocked/captures' })
  const responses = await Promise.all(
    ['City-0', 'City-1', 'City-10', 'City-20'].map((city) =>
      fetch(`${server.url}/weather`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ city }),
      }).then((r) => r.status),
    ),
  )
  expect(responses).toEqual([500, 200, 500, 500])
  const stats = await (await fetch(`${server.url}/stats`)).json()
  expect(stats).toMatchObject({ recorded: 0, written: 0, dropped: { 'write-error': 0 } })
  server.child.kill()
  const logged = server.stderr().trim().split('\n')
  expect(logged).toHaveLength(1)
  expect(logged[0]).toMatch(
    /^\[agent-tape\] Capture is off: cannot write captured runs to .*blocked\/captures: ENOTDIR/,
  )
})
