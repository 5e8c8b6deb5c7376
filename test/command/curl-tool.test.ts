import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../support/counting-server.js'
import { FixtureProject, REPO_ROOT } from '../support/fixture-project.js'
import { findPython } from '../support/python.js'
import { startTlsServer, type TlsServer } from '../support/tls-server.js'
import { cli, readCassette } from './support.js'

/**
 * A Node agent whose tools run `curl`, recorded and replayed by `agent-tape record` and
 * `replay`: curl is no Node process, so its requests reach the gateway through the proxy
 * variables, plain HTTP as it is and HTTPS with `--intercept-https` (the run's certificate
 * authority, given to curl through CURL_CA_BUNDLE and SSL_CERT_FILE).
 */
const project = new FixtureProject('curl-agent', [join(REPO_ROOT, 'test/command/fixtures/curl-agent')])
const dir = project.dir
let provider: FakeProvider
let weather: CountingServer
let forecast: TlsServer

beforeAll(async () => {
  provider = await startFakeProvider({ reply: () => ({ text: 'Paris' }) })
  weather = await startCountingServer('weather')
  forecast = await startTlsServer('forecast')
})
afterAll(async () => {
  await Promise.all([provider.close(), weather.close(), forecast.close()])
  rmSync(dir, { recursive: true, force: true })
})

function env(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    OPENAI_BASE_URL: provider.openaiBaseURL,
    OPENAI_API_KEY: 'test-openai-key',
    AGENT_TAPE_MODEL_ENDPOINTS: provider.url,
    // The gateway's own requests upstream trust the test server's certificate, as a real API's would be.
    NODE_EXTRA_CA_CERTS: forecast.certFile,
  }
}

const EXPECTED = [
  `weather: {"server":"weather","path":"/weather?city=Paris"}`,
  `forecast: {"server":"forecast","path":"/forecast?city=Paris","method":"GET"}`,
  '',
].join('\n')

it('records the curl tools of a Node agent, plain HTTP and HTTPS through the run authority, and replays them with no connection', async () => {
  const hosts = ['--tape-host', `127.0.0.1:${weather.port}`, '--tape-host', `127.0.0.1:${forecast.port}`]
  const args = [
    'record',
    '--intercept-https',
    ...hosts,
    'curl.jsonl',
    '--',
    'node',
    'agent.mjs',
    weather.origin,
    forecast.origin,
  ]
  const recorded = await cli(args, dir, env())
  expect(recorded.stderr).toContain('Recorded 3 decisions of node agent.mjs')
  expect(recorded.stderr).toContain(
    '  main lane  agent.mjs  1 decision\n  lane 1  curl  1 decision\n  lane 2  curl  1 decision\n',
  )
  expect(recorded.code).toBe(0)
  expect(recorded.output).toBe(EXPECTED)
  const cassette = readCassette(join(dir, 'curl.jsonl'))
  expect(cassette.decisions.map((d) => [d.kind, d.lane ?? '', (d.in as { url?: string }).url])).toEqual([
    ['llm', '', undefined],
    ['http', '1', `${weather.origin}/weather`],
    ['http', '2', `${forecast.origin}/forecast`],
  ])

  const before = [provider.connections, weather.connections, forecast.connections]
  const { OPENAI_API_KEY: _key, ...replayEnv } = env()
  const replayed = await cli(['replay', '--intercept-https', ...hosts, 'curl.jsonl'], dir, replayEnv)
  expect(replayed.stderr).toBe(
    'Replayed curl.jsonl cleanly: 3 of 3 decisions from 3 processes, no network; the command exited with code 0.\n',
  )
  expect(replayed).toMatchObject({ code: 0, output: recorded.output })
  expect([provider.connections, weather.connections, forecast.connections]).toEqual(before)
})

it('without --intercept-https, names the HTTPS tunnel while recording and refuses it in replay', async () => {
  const hosts = ['--tape-host', `127.0.0.1:${weather.port}`]
  const args = [
    'record',
    ...hosts,
    'tunnel.jsonl',
    '--',
    'node',
    'agent.mjs',
    weather.origin,
    'https://api.example.invalid',
  ]
  const recorded = await cli(args, dir, env())
  expect(recorded.stderr).toContain(
    'CONNECT api.example.invalid:443 (an HTTPS tunnel through the proxy: its bytes are encrypted end to end, so it passed unrecorded (--intercept-https records it))',
  )
  expect(readCassette(join(dir, 'tunnel.jsonl')).decisions.map((d) => d.kind)).toEqual(['llm', 'http'])
  const replayed = await cli(['replay', ...hosts, 'tunnel.jsonl'], dir, env())
  expect(replayed.code).toBe(3)
  expect(replayed.stderr).toContain(
    'Cannot replay a request of the command: CONNECT api.example.invalid:443 (an HTTPS tunnel through the proxy, which a replay cannot answer without --intercept-https)',
  )
})

it('names a client that refuses the run authority (it pins its own): never recorded as empty, never silently', async () => {
  const hosts = ['--tape-host', `127.0.0.1:${weather.port}`, '--tape-host', `127.0.0.1:${forecast.port}`]
  // curl told to trust only the test server's own certificate, as a client pinning its authority would.
  const pinned = [
    'sh',
    '-c',
    `curl -sS --cacert ${forecast.certFile} ${forecast.origin}/forecast; echo "curl exited $?"`,
  ]
  const recorded = await cli(
    ['record', '--intercept-https', ...hosts, 'pinned.jsonl', '--', ...pinned],
    dir,
    env(),
  )
  expect(recorded.output).toBe('curl exited 60\n')
  expect(recorded.code).toBe(1)
  expect(recorded.stderr).toContain('[agent-tape] Recorded nothing')
  expect(recorded.stderr).toContain(
    `CONNECT 127.0.0.1:${forecast.port} (the client refused the run's certificate (ERR_SSL_TLSV1_ALERT_UNKNOWN_CA): it pins its own authority or does not read SSL_CERT_FILE, so what it sent was not seen)`,
  )
})

it('records and replays HTTPS through the run authority from Python clients too (urllib, httpx, requests)', async () => {
  const python = findPython(['httpx', 'requests'])
  const fetchAll = [
    'import sys, urllib.request, httpx, requests',
    'url = sys.argv[1]',
    "print(urllib.request.urlopen(url + '/u').read().decode())",
    "print(httpx.get(url + '/x').text)",
    "print(requests.get(url + '/r').text)",
  ].join('\n')
  writeFileSync(join(dir, 'https_clients.py'), fetchAll)
  const hosts = ['--tape-host', `127.0.0.1:${forecast.port}`]
  const recorded = await cli(
    [
      'record',
      '--intercept-https',
      ...hosts,
      'py-https.jsonl',
      '--',
      python,
      'https_clients.py',
      forecast.origin,
    ],
    dir,
    env(),
  )
  expect(recorded.code).toBe(0)
  expect(recorded.output.split('\n').map((line) => (line ? JSON.parse(line).path : line))).toEqual([
    '/u',
    '/x',
    '/r',
    '',
  ])
  expect(recorded.stderr).toContain('  main lane  python3 https_clients.py  3 decisions\n')
  const before = forecast.connections
  const replayed = await cli(['replay', '--intercept-https', ...hosts, 'py-https.jsonl'], dir, env())
  expect(replayed).toMatchObject({ code: 0, output: recorded.output })
  expect(forecast.connections).toBe(before)
})
