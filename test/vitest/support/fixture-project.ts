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
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'

const here = dirname(fileURLToPath(import.meta.url))
export const REPO_ROOT = join(here, '../../..')
const FIXTURES = join(here, '../fixtures')

export interface RunResult {
  code: number | null
  /** stdout and stderr, without colours. */
  output: string
}

/**
 * A copy of a committed fixture project in a temporary directory (the committed files are
 * never touched), whose `node_modules` is a link to the repository's, so the workspace
 * packages resolve by their public names as they do for a user.
 */
export class FixtureProject {
  readonly dir: string

  /** @param source a fixture name, or another project to copy (node_modules excepted) */
  constructor(source: string | FixtureProject) {
    const name = typeof source === 'string' ? source : 'copy'
    this.dir = mkdtempSync(join(tmpdir(), `agent-tape-${name}-`))
    const from = typeof source === 'string' ? join(FIXTURES, source) : source.dir
    cpSync(from, this.dir, { recursive: true, filter: (path) => !path.endsWith('node_modules') })
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(this.dir, 'node_modules'), 'junction')
  }

  /** Runs a shell command in the project, with `env` added to a clean environment (no CI). */
  run(command: string, env: Record<string, string> = {}): Promise<RunResult> {
    const base = { ...process.env }
    for (const key of Object.keys(base)) {
      if (
        key === 'CI' ||
        key.startsWith('AGENT_TAPE_') ||
        key.startsWith('VITEST') ||
        key === 'GITHUB_STEP_SUMMARY'
      )
        delete base[key]
    }
    delete base.NODE_OPTIONS
    return new Promise((resolve, reject) => {
      const child = spawn(command, {
        cwd: this.dir,
        shell: true,
        env: { ...base, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
      })
      let output = ''
      child.stdout.on('data', (d) => (output += d))
      child.stderr.on('data', (d) => (output += d))
      child.on('error', reject)
      child.on('close', (code) => resolve({ code, output: output.replace(/\x1b\[[0-9;]*m/g, '') }))
    })
  }

  /** `vitest <args>` with the repository's Vitest. */
  vitest(args: string, env: Record<string, string> = {}): Promise<RunResult> {
    const bin = join(REPO_ROOT, 'node_modules/vitest/vitest.mjs')
    return this.run(`"${process.execPath}" "${bin}" ${args}`, env)
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

  /** Every file under `dir` (relative, sorted) with its content, to compare before and after a run. */
  snapshot(dir = '.'): Record<string, string> {
    const files: Record<string, string> = {}
    const walk = (at: string) => {
      for (const entry of readdirSync(join(this.dir, at))) {
        const path = at === '.' ? entry : `${at}/${entry}`
        if (entry === 'node_modules') continue
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

  relative(path: string): string {
    return relative(this.dir, path)
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/**
 * The fake model of the fixtures: a city agent that asks for the weather, then the time, then
 * answers; and an echo for requests without tools.
 */
export function startCityProvider(): Promise<FakeProvider> {
  return startFakeProvider({
    seed: 'fixtures',
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
