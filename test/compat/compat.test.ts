import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { beforeAll, expect, it } from 'vitest'
import { nodeBinary } from '../support/node-binary.js'
import { packPackages } from '../support/pack.js'
import { type CompatProject, PROJECTS, projectFiles } from './projects.js'

// The compatibility stage: the packed tarballs in fresh external projects, installed with npm
// under the Node.js version each project runs on, recording and then replaying a real agent.
// npm's own entry point, run with each project's Node.js (under pnpm, npm_execpath is pnpm's).
const NPM_CLI = whichNpm()
// npm finds its global config beside the node binary that runs it; the projects' Node.js is
// another binary, so it is told where this machine's is (registry, certificates).
const NPM_GLOBALCONFIG = execFileSync('npm', ['config', 'get', 'globalconfig'], { encoding: 'utf8' }).trim()

interface Outcome {
  install: Run
  record: Run
  replay: Run
  /** MSW projects: a request MSW lets through, in a tape (it must be refused). */
  guard?: Run
  /** MSW projects set up halfway (no interception: 'msw'): the run, what it sent and what it wrote. */
  halfway?: { run: Run; requests: number; cassettes: string[] }
  recordConnections: number
  replayConnections: number
  cassettes: string[]
  seconds: number
}

interface Run {
  code: number | null
  output: string
}

const outcomes = new Map<string, Outcome | Error>()
const only = process.env.AGENT_TAPE_COMPAT_ONLY?.split(',')
const selected = (project: CompatProject) => !only || only.includes(project.name)

beforeAll(async () => {
  const packed = packPackages()
  const tarballs = Object.fromEntries(Object.values(packed).map((p) => [p.name, `file:${p.tarball}`]))

  // Installs are network- and CPU-bound: two projects at a time on a 2-core machine.
  // AGENT_TAPE_COMPAT_ONLY=<name,…> runs some projects only, while working on one.
  const queue = PROJECTS.filter(selected)
  const worker = async () => {
    for (let project = queue.shift(); project; project = queue.shift()) {
      outcomes.set(project.name, await runProject(project, tarballs).catch((e: Error) => e))
    }
  }
  await Promise.all([worker(), worker()])
}, 900_000)

async function runProject(project: CompatProject, tarballs: Record<string, string>): Promise<Outcome> {
  // A provider per project: projects run side by side, and each counts its own connections.
  const provider = await startFakeProvider({
    reply: () => ({ text: ['Hello ', 'from the ', 'fake provider.'] }),
  })
  try {
    return await recordAndReplay(project, tarballs, provider)
  } finally {
    await provider.close()
  }
}

async function recordAndReplay(
  project: CompatProject,
  tarballs: Record<string, string>,
  provider: FakeProvider,
): Promise<Outcome> {
  const started = performance.now()
  const dir = mkdtempSync(join(tmpdir(), `agent-tape-compat-${project.name}-`))
  const files = projectFiles(project, tarballs)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const node = project.node === 20 ? process.execPath : await nodeBinary(project.node)
  const install = await run(node, [NPM_CLI, 'install', '--no-audit', '--no-fund'], dir, {
    npm_config_globalconfig: NPM_GLOBALCONFIG,
  })
  if (install.code !== 0) throw new Error(`npm install failed in ${project.name}:\n${install.output}`)
  const bin =
    project.runner === 'vitest'
      ? ['node_modules/vitest/vitest.mjs', 'run']
      : // Jest loads msw (ESM) only through Node's VM modules.
        [...(project.msw ? ['--experimental-vm-modules'] : []), 'node_modules/jest/bin/jest.js']
  const env = { FAKE_PROVIDER_URL: provider.url }
  const before = provider.connections
  const record = await run(node, bin, dir, {
    ...env,
    OPENAI_API_KEY: 'test-key',
    ANTHROPIC_API_KEY: 'test-key',
  })
  const recordConnections = provider.connections - before
  const cassettes = readdirSync(join(dir, 'test', '__cassettes__'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.jsonl'))
  const afterRecord = provider.connections
  // A CI job: no API key, nothing may be recorded, nothing may leave.
  const replay = await run(node, bin, dir, { ...env, CI: 'true' })
  const replayConnections = provider.connections - afterRecord
  const guard = project.msw
    ? await run(node, [...bin, '-t', 'msw-unhandled'], dir, {
        ...env,
        GUARD_CHECK: '1',
        OPENAI_API_KEY: 'test-key',
      })
    : undefined
  const halfway = project.msw ? await runHalfway(project, tarballs, provider, node, bin, dir) : undefined
  return {
    install,
    record,
    replay,
    ...(guard ? { guard } : {}),
    ...(halfway ? { halfway } : {}),
    recordConnections,
    replayConnections,
    cassettes,
    seconds: (performance.now() - started) / 1000,
  }
}

/**
 * The same project with MSW set up halfway: the config without interception: 'msw', so that the
 * runner keeps its own interception next to the team's server and its tapeHandlers(); recording
 * from scratch.
 */
async function runHalfway(
  project: CompatProject,
  tarballs: Record<string, string>,
  provider: FakeProvider,
  node: string,
  bin: string[],
  dir: string,
): Promise<NonNullable<Outcome['halfway']>> {
  const files = projectFiles(project, tarballs, { halfway: true })
  for (const [path, text] of Object.entries(files)) {
    if (/^(?:vitest|jest)\.config\.|msw-setup/.test(path)) writeFileSync(join(dir, path), text)
  }
  rmSync(join(dir, 'test', '__cassettes__'), { recursive: true, force: true })
  const before = provider.requests.length
  const run_ = await run(node, bin, dir, { FAKE_PROVIDER_URL: provider.url, OPENAI_API_KEY: 'test-key' })
  const cassettes = readdirSync(join(dir, 'test'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.jsonl'))
  return { run: run_, requests: provider.requests.length - before, cassettes }
}

function run(node: string, args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    // A user's shell: PATH and HOME, none of this runner's CI or npm variables.
    const child = spawn(node, args, {
      cwd,
      timeout: 300_000,
      env: { PATH: `${dirname(node)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '/root', ...env },
    })
    let output = ''
    child.stdout.on('data', (d) => {
      output += d
    })
    child.stderr.on('data', (d) => {
      output += d
    })
    child.on('close', (code) => resolve({ code, output: output.replace(/\x1b\[[0-9;]*m/g, '') }))
  })
}

function whichNpm(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    try {
      return join(dirname(realpathSync(join(dir, 'npm'))), 'npm-cli.js')
    } catch {
      // not in this folder
    }
  }
  throw new Error('npm is not on PATH')
}

it.each(PROJECTS.filter(selected).map((p) => [p.name, p] as const))('%s', (name, project) => {
  const outcome = outcomes.get(name)
  if (outcome instanceof Error) throw outcome
  if (!outcome) throw new Error(`${name} did not run`)
  const { install, record, replay } = outcome
  // Installs without a peer-dependency conflict or an engine warning.
  expect(install.output).not.toMatch(/ERESOLVE|EBADENGINE|overriding peer dependency|Conflicting peer/)
  expect(record.code, record.output).toBe(0)
  expect(outcome.cassettes).toHaveLength(project.scenarios.length)
  expect(outcome.recordConnections).toBeGreaterThan(0)
  expect(replay.code, replay.output).toBe(0)
  const n = project.scenarios.length
  expect(replay.output).toContain(
    `${n} tape${n === 1 ? '' : 's'}: ${n} replayed cleanly, 0 recorded, 0 diverged`,
  )
  // msw 3 opens one connection per host for the openai SDK's requests and leaves it unused, with
  // or without agent-tape (its handlers answer them all); every other setup opens none.
  expect(outcome.replayConnections).toBe(project.msw === 3 ? 1 : 0)
  if (project.msw) {
    expect(outcome.guard?.code, outcome.guard?.output).not.toBe(0)
    expect(outcome.guard?.output).toContain(
      'Blocked a connection to unmocked.internal.example:443 from a request MSW let through',
    )
    // Set up halfway, the pair is refused at once: nothing sent, nothing recorded twice or written.
    const halfway = outcome.halfway!
    expect(halfway.run.code, halfway.run.output).not.toBe(0)
    expect(halfway.run.output).toContain("agent-tape's own interception is installed")
    expect(halfway.run.output).toContain("Set interception: 'msw' in the agent-tape options")
    expect(halfway.run.output).not.toContain('llm decisions')
    expect(halfway.requests).toBe(0)
    expect(halfway.cassettes).toEqual([])
  }
  // Source maps resolve to the shipped sources: Vitest warns about those that do not.
  expect(`${record.output}${replay.output}`).not.toMatch(/Sourcemap for .* points to missing source files/)
})

it('reports what the stage costs', () => {
  const ran = PROJECTS.filter(selected)
  const seconds = ran.map((p) => {
    const o = outcomes.get(p.name)
    return o && !(o instanceof Error) ? o.seconds : 0
  })
  expect(seconds.every((s) => s > 0)).toBe(true)
  console.log(
    `compatibility stage: ${ran.length} projects, ${seconds.map((s, i) => `${ran[i]!.name} ${s.toFixed(0)} s`).join(', ')}`,
  )
})
