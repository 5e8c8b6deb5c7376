import { spawn } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'

const here = dirname(fileURLToPath(import.meta.url))
export const REPO_ROOT = join(here, '../..')

/**
 * The city agent both runners' `agent` fixtures test (`src/agent.ts`, `src/prompt.ts`), laid
 * over the fixture when it is copied. Its imports have no extension, which Vite and Jest's
 * resolver both follow.
 */
export const CITY_AGENT = join(here, 'fixtures/city-agent')

// Variables by which a runner (through ci-info or std-env) or agent-tape would decide it runs in CI.
const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION', 'BUILD_ID', 'BUILD_NUMBER', 'RUN_ID', 'GITHUB_ACTIONS']

/** The cache folder of a copy (see `AGENT_TAPE_CACHE_DIR`), left out of its snapshots as node_modules is. */
export const CACHE_DIR = '.agent-tape-cache'

export interface RunResult {
  code: number | null
  /** stdout and stderr, without colours. */
  output: string
  stdout: string
  stderr: string
}

/**
 * A copy of committed fixture folders in a temporary directory (the committed files are never
 * touched), whose `node_modules` links to the repository's, so the workspace packages, the
 * runners and the SDKs resolve by their public names as they do for a user.
 */
export class FixtureProject {
  readonly dir: string

  /**
   * @param label names the temporary directory
   * @param folders copied in order, a later one's files replacing an earlier one's (node_modules excepted)
   */
  constructor(label: string, folders: readonly string[]) {
    this.dir = mkdtempSync(join(tmpdir(), `agent-tape-${label}-`))
    for (const from of folders) {
      cpSync(from, this.dir, { recursive: true, filter: (path) => !path.endsWith('node_modules') })
    }
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(this.dir, 'node_modules'), 'junction')
  }

  /**
   * Type-checks the project's `include` folders with the repository's TypeScript, strict, with
   * the given global `types` (what a user lists in the tests' `tsconfig.json`).
   */
  typeCheck(include: string[], types: string[]): Promise<RunResult> {
    this.write(
      'tsconfig.json',
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'nodenext',
          skipLibCheck: true,
          types,
        },
        include,
      }),
    )
    return this.run(
      `"${process.execPath}" "${join(REPO_ROOT, 'node_modules/typescript/bin/tsc')}" -p tsconfig.json`,
    )
  }

  /** Runs a shell command in the project, with `env` added to an environment without CI markers. */
  run(command: string, env: Record<string, string> = {}): Promise<RunResult> {
    const base = { ...process.env }
    for (const key of Object.keys(base)) {
      if (
        CI_VARIABLES.includes(key) ||
        key.startsWith('AGENT_TAPE_') ||
        // Set when the suite runs under `pnpm test`; the commands here are typed as a user would.
        key.startsWith('npm_') ||
        key.startsWith('VITEST') ||
        key.startsWith('JEST')
      )
        delete base[key]
    }
    delete base.NODE_OPTIONS
    delete base.GITHUB_STEP_SUMMARY
    return new Promise((resolve, reject) => {
      const child = spawn(command, {
        cwd: this.dir,
        shell: true,
        // The copies share the repository's node_modules: each keeps its diverged runs in its own folder.
        env: { ...base, NO_COLOR: '1', FORCE_COLOR: '0', AGENT_TAPE_CACHE_DIR: CACHE_DIR, ...env },
      })
      const text = { output: '', stdout: '', stderr: '' }
      child.stdout.on('data', (d) => {
        text.output += d
        text.stdout += d
      })
      child.stderr.on('data', (d) => {
        text.output += d
        text.stderr += d
      })
      child.on('error', reject)
      child.on('close', (code) => {
        const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '')
        resolve({ code, output: plain(text.output), stdout: plain(text.stdout), stderr: plain(text.stderr) })
      })
    })
  }

  read(path: string): string {
    return readFileSync(join(this.dir, path), 'utf8')
  }

  write(path: string, text: string): void {
    mkdirSync(dirname(join(this.dir, path)), { recursive: true })
    writeFileSync(join(this.dir, path), text)
  }

  remove(path: string): void {
    rmSync(join(this.dir, path), { force: true })
  }

  /** Every file under `dir` (relative) with its content, to compare before and after a run. */
  snapshot(dir = '.'): Record<string, string> {
    const files: Record<string, string> = {}
    const walk = (at: string) => {
      for (const entry of readdirSync(join(this.dir, at))) {
        const path = at === '.' ? entry : `${at}/${entry}`
        if (entry === 'node_modules' || path === CACHE_DIR) continue
        if (statSync(join(this.dir, path)).isDirectory()) walk(path)
        else files[path] = this.read(path)
      }
    }
    walk(dir)
    return files
  }

  /** The cassette files of the project, relative and sorted. */
  cassettes(): string[] {
    return Object.keys(this.snapshot())
      .filter((p) => p.endsWith('.jsonl'))
      .sort()
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/**
 * The fake model of the fixtures, for the OpenAI and Anthropic wire formats alike: a city
 * agent that asks for the weather, then the time, then answers; an echo for requests without tools.
 */
export function startCityProvider(seed: string): Promise<FakeProvider> {
  return startFakeProvider({
    seed,
    reply: ({ body }) => {
      const messages = (body.messages ?? []) as { role: string; content?: unknown }[]
      const question = String(messages.find((m) => m.role === 'user')?.content ?? '')
      if (!body.tools) return { text: `echo: ${question}`, usage: { inputTokens: 10, outputTokens: 4 } }
      const city = /in (\w+)\?/.exec(question)?.[1] ?? 'Nowhere'
      const seen = messages.filter((m) => m.role === 'tool').length
      if (seen === 0) return { toolCalls: [{ name: 'get_weather', args: { city } }] }
      if (seen === 1) return { toolCalls: [{ name: 'get_time', args: { city } }] }
      return { text: `It is 14:05 in ${city}, 18°C.`, usage: { inputTokens: 120, outputTokens: 14 } }
    },
  })
}
