/**
 * A team's first hour, from the packed tarballs, following the README literally in a fresh
 * external project per runner: vendor the tarballs and install them (Install, capture's install
 * too, and every package the README imports is one it installs), the quickstart's
 * install, files and commands, record, replay with no key, a prompt edit that misses, the view
 * and re-record commands the miss prints run as printed, then the README's CI workflow on a fresh
 * clone (`npm ci`, the keyless replay, `agent-tape verify --strict`). Every command agent-tape
 * prints on the way is checked: none may fetch a package from the registry.
 */
import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { REPO_ROOT } from '../support/fixture-project.js'
import { nodeBinary } from '../support/node-binary.js'
import { packPackages } from '../support/pack.js'
import { readReadmeSection } from '../support/readme-section.js'

// npm finds its global config beside the node binary that runs it; the projects' Node.js is
// another binary, so it is told where this machine's is (registry, certificates).
const NPM_GLOBALCONFIG = execFileSync('npm', ['config', 'get', 'globalconfig'], { encoding: 'utf8' }).trim()
const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'first hour',
  GIT_AUTHOR_EMAIL: 'first-hour@example.com',
  GIT_COMMITTER_NAME: 'first hour',
  GIT_COMMITTER_EMAIL: 'first-hour@example.com',
}
const PROMPT = 'Classify the ticket as refund, bug or question. Answer with one word.'
const EDITED = 'Classify the ticket as refund, bug or question. Answer with a single word.'

/** The folder holding `packed/`, as the README's `$AT`. */
let at: string
let node: string

beforeAll(async () => {
  const packed = packPackages()
  at = mkdtempSync(join(tmpdir(), 'agent-tape-clone-'))
  mkdirSync(join(at, 'packed'))
  for (const { tarball } of Object.values(packed))
    copyFileSync(tarball, join(at, 'packed', tarball.split('/').at(-1)!))
  // The latest Vitest, which the quickstart installs, needs Node.js 22 or later.
  node = await nodeBinary(22)
}, 300_000)

interface Run {
  code: number | null
  output: string
}

/** A command line in a user's bash, in `cwd`: their PATH and HOME, none of this runner's CI or npm variables. */
function sh(command: string, cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {
      cwd,
      timeout: 300_000,
      env: {
        PATH: `${dirname(node)}:${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? '/root',
        npm_config_globalconfig: NPM_GLOBALCONFIG,
        AT: at,
        ...GIT_IDENTITY,
        ...env,
      },
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

async function ok(command: string, cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const run = await sh(command, cwd, env)
  expect(run.code, `${command}\n${run.output}`).toBe(0)
  return run
}

/** The lines of a README `sh` block after a marker or a heading. */
function block(text: string, after: RegExp): string[] {
  const match = new RegExp(`${after.source}[\\s\\S]*?\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(text)
  expect(match, `no sh block after ${after}`).not.toBeNull()
  return match![1]!.trim().split('\n')
}

/**
 * The package-runner invocations in agent-tape's output that could fetch a package from the
 * registry: `npx` without `--no-install`, other than the test runner the project runs (which is
 * installed, as the run that printed it shows), and `bunx`, `pnpm dlx`, `yarn dlx` or an install
 * of an unscoped `agent-tape` package.
 */
export function fetchingCommands(output: string): string[] {
  const found: string[] = []
  for (const m of output.matchAll(/\b(npx|bunx|pnpm dlx|yarn dlx)\s+(\S+)[^\n]*/g)) {
    if (m[1] === 'npx' && (m[2] === '--no-install' || m[2] === 'vitest' || m[2] === 'jest')) continue
    found.push(m[0])
  }
  for (const m of output.matchAll(
    /\b(?:npm (?:i|install|add)|pnpm add|yarn add)\b[^\n]*\bagent-tape(?![-\w/])[^\n]*/g,
  )) {
    found.push(m[0])
  }
  return found
}

it('flags a printed command that could fetch an unscoped package, and passes the ones agent-tape prints', () => {
  expect(
    fetchingCommands(
      [
        '  view      npx agent-tape view a.jsonl --run r.jsonl',
        'prune them with npx agent-tape-jest --prune-cassettes:',
        'bunx agent-tape show a.jsonl',
        'npm install -D agent-tape',
      ].join('\n'),
    ),
  ).toHaveLength(4)
  expect(
    fetchingCommands(
      [
        "re-record this test: npx vitest run test/a.test.ts -t '^a$' -- --update-cassettes.",
        "re-record this test: npx --no-install agent-tape-jest test/a.test.ts -t '^a$' --update-cassettes.",
        '  view      npx --no-install agent-tape view a.jsonl --run r.jsonl',
        'pnpm agent-tape view a.jsonl',
        'npm install -D @agent-tape/vitest',
      ].join('\n'),
    ),
  ).toEqual([])
})

/** The `@agent-tape/*` packages a text's code blocks import (`@agent-tape/vitest/plugin` is `vitest`). */
export function importedPackages(text: string): string[] {
  const code = [...text.matchAll(/```(?:ts|js|tsx|jsx|mjs|cjs)\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n')
  const found = new Set<string>()
  for (const m of code.matchAll(
    /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)['"]@agent-tape\/([\w-]+)[^'"]*['"]/gm,
  ))
    found.add(m[1]!)
  return [...found].sort()
}

/** The `@agent-tape/*` packages the `npm install` lines of the README's Install blocks install. */
function installedPackages(install: string): string[] {
  const found = new Set<string>()
  for (const [, runner] of install.matchAll(/<!-- readme-install: (\S+) -->/g))
    for (const line of block(install, new RegExp(`<!-- readme-install: ${runner} -->`)))
      if (/^npm install\b/.test(line))
        for (const m of line.matchAll(/\bagent-tape-([a-z-]+?)-\d+\.\d+\.\d+\.tgz\b/g)) found.add(m[1]!)
  return [...found].sort()
}

it('installs, in the Install section, every package the README imports', () => {
  expect(
    importedPackages(
      [
        '```ts',
        "import { agentTape } from '@agent-tape/vitest/plugin'",
        "const { createCapture } = require('@agent-tape/capture')",
        "await import('@agent-tape/cli')",
        '```',
        "Prose about `import x from '@agent-tape/inspect'` is no code block.",
      ].join('\n'),
    ),
  ).toEqual(['capture', 'cli', 'vitest'])
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  const imported = importedPackages(readme)
  expect(imported).toEqual(expect.arrayContaining(['capture', 'vitest']))
  const installed = installedPackages(readReadmeSection('Install').section)
  expect(imported.filter((name) => !installed.includes(name))).toEqual([])
})

interface Flow {
  runner: 'vitest' | 'jest'
  /** The README section of the quickstart. */
  section: string
  /** The CI workflow's test step for this runner. */
  testStep: string
}

const FLOWS: Flow[] = [
  { runner: 'vitest', section: 'Vitest', testStep: 'npx vitest run' },
  { runner: 'jest', section: 'Jest', testStep: 'npx jest' },
]

describe.concurrent('the README, followed literally from the tarballs', () => {
  const providers: FakeProvider[] = []
  afterAll(async () => {
    await Promise.all(providers.map((p) => p.close()))
  })

  it.each(FLOWS)(
    '$runner: record, keyless replay, miss, view, re-record, keyless CI replay on a fresh clone, verify --strict',
    async ({ runner, section, testStep }) => {
      const provider = await startFakeProvider({
        seed: `first-hour-${runner}`,
        reply: () => ({ text: 'Refund', usage: { inputTokens: 52, outputTokens: 9 } }),
      })
      providers.push(provider)
      const dir = mkdtempSync(join(tmpdir(), `agent-tape-first-hour-${runner}-`))
      const printed: string[] = []
      const readme = readReadmeSection(section)
      const online = { OPENAI_BASE_URL: provider.openaiBaseURL, OPENAI_API_KEY: 'sk-first-hour-test' }

      // Install: the tarballs vendored in the project, then installed from there.
      const install = readReadmeSection('Install').section
      for (const command of block(install, new RegExp(`<!-- readme-install: ${runner} -->`)))
        await ok(command, dir)
      if (runner === 'vitest') {
        // A server that captures its runs adds capture, as the Install section says, and imports it.
        for (const command of block(install, /<!-- readme-install: capture -->/)) await ok(command, dir)
        await ok(`node --input-type=module -e "await import('@agent-tape/capture')"`, dir)
      }
      // The quickstart's step 1, then its files.
      for (const command of block(readme.section, /\*\*1\. Install\*\*/)) await ok(command, dir)
      for (const { path, code } of readme.snippets) {
        mkdirSync(dirname(join(dir, path)), { recursive: true })
        writeFileSync(join(dir, path), code)
      }
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      // Paths inside the project, so that the lockfile installs on a CI runner as it does here.
      expect(Object.values(manifest.devDependencies).filter((v) => String(v).startsWith('file:'))).toEqual(
        expect.arrayContaining([`file:vendor/agent-tape/agent-tape-${runner}-0.1.0.tgz`]),
      )
      expect(JSON.stringify(manifest)).not.toContain(at)
      writeFileSync(join(dir, '.gitignore'), 'node_modules/\n')
      await ok('git init -q && git add -A && git commit -qm "triage agent"', dir)

      // The first run records; the cassette is committed.
      const run = runner === 'vitest' ? 'npx vitest run' : 'npx jest'
      expect(readme.section).toContain(`\n${run}\n`)
      const record = await ok(run, dir, online)
      printed.push(record.output)
      expect(record.output).toContain('1 tape: 0 replayed cleanly, 1 recorded, 0 diverged')
      expect(record.output).not.toMatch(/configLoader|loaded as CommonJS/)
      expect(provider.connections).toBeGreaterThan(0)
      await ok('git add -A && git commit -qm "the cassette"', dir)

      // A teammate with no key: the committed cassette answers, nothing leaves.
      const connections = provider.connections
      const keyless = await ok(run, dir, { OPENAI_BASE_URL: provider.openaiBaseURL })
      printed.push(keyless.output)
      expect(keyless.output).toContain('1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
      expect(provider.connections).toBe(connections)

      // A prompt edit: the miss is the test's error, with the commands to go on.
      const agent = join(dir, 'src/triage.ts')
      expect(readFileSync(agent, 'utf8')).toContain(PROMPT)
      writeFileSync(agent, readFileSync(agent, 'utf8').replace(PROMPT, EDITED))
      const miss = await sh(run, dir, { OPENAI_BASE_URL: provider.openaiBaseURL })
      printed.push(miss.output)
      expect(miss.code, miss.output).not.toBe(0)
      expect(miss.output).toContain('[agent-tape] Replay miss at step 1, model request (gpt-4o-mini)')
      expect(miss.output).toContain('Answer with one word." → "…question. Answer with a single word."')
      expect(provider.connections).toBe(connections)
      const rerecord = /re-record this test: (.+?)\.$/m.exec(miss.output)?.[1]
      const view = /^\s*view {6}(.+)$/m.exec(miss.output)?.[1]
      expect(rerecord).toBe(
        runner === 'vitest'
          ? "npx vitest run test/triage.test.ts -t '^double-charge$' -- --update-cassettes"
          : "npx --no-install agent-tape-jest test/triage.test.ts -t '^double-charge$' --update-cassettes",
      )
      expect(view).toMatch(
        /^npx --no-install agent-tape view test\/__cassettes__\/triage\.test\.ts\/double-charge\.jsonl --run \S+$/,
      )

      // The view command, as printed: a page that shows the run next to its recording.
      const opened = await ok(view!, dir)
      printed.push(opened.output)
      const page = /^file:\/\/\S+\.html$/m.exec(opened.output)?.[0]
      expect(page, opened.output).toBeDefined()
      expect(readFileSync(fileURLToPath(page!), 'utf8')).toContain('"role":"run"')

      // The re-record command, as printed.
      const update = await ok(rerecord!, dir, online)
      printed.push(update.output)
      expect(update.output).toContain('1 tape: 0 replayed cleanly, 1 recorded, 0 diverged')
      expect(provider.connections).toBeGreaterThan(connections)
      await ok('git commit -qam "a single word"', dir)

      // CI: the README's workflow on a fresh clone, with no key and no model endpoint.
      const ci = readReadmeSection('In CI').section
      const workflow = parse(/<!-- readme-ci -->\n```yaml\n([\s\S]*?)```/.exec(ci)![1]!) as {
        jobs: Record<string, { steps: { run?: string }[] }>
      }
      const steps = workflow.jobs.replay!.steps.flatMap((s) => (s.run ? [s.run] : []))
      expect(steps).toEqual(['npm ci', 'npx vitest run', 'npx agent-tape verify --strict'])
      const clone = mkdtempSync(join(tmpdir(), `agent-tape-first-hour-ci-${runner}-`))
      await ok(`git clone -q "${dir}" .`, clone)
      expect(existsSync(join(clone, 'node_modules'))).toBe(false)
      const summary = join(clone, '..', `${runner}-step-summary.md`)
      const before = provider.connections
      for (const step of steps) {
        // With Jest, the test step is `npx jest` (the README says so under the workflow).
        const command = step === 'npx vitest run' ? testStep : step
        const result = await ok(command, clone, { CI: 'true', GITHUB_STEP_SUMMARY: summary })
        printed.push(result.output)
        if (command === testStep)
          expect(result.output).toContain('1 tape: 1 replayed cleanly, 0 recorded, 0 diverged')
        if (command.includes('verify'))
          expect(result.output).toContain('1 cassette checked: 1 ok, 0 with problems.')
      }
      expect(provider.connections).toBe(before)
      expect(readFileSync(summary, 'utf8')).toContain('1 replayed cleanly')

      // Nothing agent-tape printed on the way could fetch a package.
      expect(printed.flatMap(fetchingCommands)).toEqual([])
    },
    600_000,
  )

  it('pnpm: the runner tarball alone (the others as overrides) links a working agent-tape bin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tape-first-hour-pnpm-'))
    const install = readReadmeSection('Install').section
    await ok(block(install, /<!-- readme-install: vitest -->/)[0]!, dir)
    const overrides = /```yaml\n(overrides:[\s\S]*?)```/.exec(install)?.[1]
    expect(overrides).toBeDefined()
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), overrides!)
    const add = /run `(pnpm add -D \S+)`/.exec(install)?.[1]
    expect(add).toBe('pnpm add -D ./vendor/agent-tape/agent-tape-vitest-0.1.0.tgz')
    const pnpm = 'npx -y pnpm@12.4.2'
    await ok(add!.replace(/^pnpm/, pnpm), dir)
    // The forms agent-tape prints under pnpm (`pnpm agent-tape …`) and under npm.
    expect((await ok(`${pnpm} agent-tape --version`, dir)).output.trim()).toMatch(/^0\.1\.0$/m)
    expect((await ok('npx --no-install agent-tape --version', dir)).output.trim()).toBe('0.1.0')
  }, 600_000)
})
