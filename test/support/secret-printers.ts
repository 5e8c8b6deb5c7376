import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStyle, main } from '@agent-tape/cli'
import { type Cassette, type DecisionRecord, serializeCassette } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { finishRun, openTestTape, type TapeSummaryEntry } from '@agent-tape/runner-kit'

/**
 * Every writer of files and every printer agent-tape has, run over values: the miss report, the
 * run file kept for the view, the live-tools drift report, the run summary, the GitHub step
 * summary, the divergence view page, and the CLI's show, diff, view, verify and textconv on a
 * cassette written by hand. Several values go through one run (each in its own decisions), so that a
 * corpus of hundreds costs a few runs, not hundreds.
 */

const STAND_IN = 'the settings the run was recorded with'
const CONFIG = {
  cassetteDir: '__cassettes__',
  allowRecordingInCI: false,
  strictHarness: false,
  failOnUnused: true,
  redactors: [],
  normalizers: [],
  ignore: [],
  allowSecrets: [],
}

export interface PrinterOutputs {
  /** What agent-tape printed or wrote for people, by where. */
  printed: Record<string, string>
  /** Files it wrote that may be committed or shared (the run file). */
  written: Record<string, string>
  /** The exit code of `agent-tape verify` on a cassette that holds the values. */
  verify: number
}

/** The printers every run reaches (the view pages of a diverged run come in addition). */
export const EVERY_PRINTER = [
  'miss report',
  'drift report',
  'run summary',
  'step summary',
  'show a.jsonl --full',
  'show a.jsonl --json',
  'diff a.jsonl b.jsonl',
  'diff a.jsonl b.jsonl --json',
  'view a.jsonl -o run.html (page)',
  'view a.jsonl b.jsonl -o diff.html (page)',
  'verify a.jsonl',
  'textconv a.jsonl',
]

/** Runs the values through every writer and printer, and collects what each produced. */
export async function throughEveryPrinter(
  id: string,
  values: readonly unknown[],
  env: Record<string, string>,
): Promise<PrinterOutputs> {
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-printers-'))
  const store = createFileStore(root)
  const entries: TapeSummaryEntry[] = []
  const printed: Record<string, string> = {}
  const written: Record<string, string> = {}
  const open = (mode: string) =>
    openTestTape({
      runner: 'vitest',
      exec: 'npx',
      testFile: 'test/agent.test.ts',
      names: [id],
      name: 'run',
      root,
      store,
      config: { ...CONFIG, mode: mode as 'replay' },
      runtime: {},
      harnessProvider: () => {
        throw new Error('no harness paths were given')
      },
      env: { ...env, AGENT_TAPE_CACHE_DIR: join(root, '.cache') },
      report: (entry) => entries.push(entry),
    })
  /** The run summary, the GitHub step summary and the view pages of the tapes so far. */
  const summarize = async (done: TapeSummaryEntry[], viewDir: string) => {
    const stepSummary = join(root, 'step-summary.md')
    writeFileSync(stepSummary, '')
    await finishRun(
      [{ root, config: { cassetteDir: '__cassettes__', viewDir }, entries: done, collected: [] }],
      {
        prune: false,
        print: (text) => {
          printed['run summary'] = [printed['run summary'], text].filter(Boolean).join('\n')
        },
        env: { ...env, GITHUB_STEP_SUMMARY: stepSummary },
      },
    )
    printed['step summary'] = [printed['step summary'], readFileSync(stepSummary, 'utf8')]
      .filter(Boolean)
      .join('\n')
    for (const page of pages(join(root, viewDir))) printed[`view page ${page}`] = readFileSync(page, 'utf8')
  }
  const recording = await open('update')
  for (const [i] of values.entries()) {
    await recording.tape.tool('configure', { settings: STAND_IN, n: i }, () => 'ok')
    await recording.tape.tool('read_config', { n: i }, () => ({ config: STAND_IN }))
  }
  await recording.finish()

  // A miss on an input that holds the value: the miss report, and the run kept for the view.
  const replay = await open('replay')
  const misses: string[] = []
  for (const [i, value] of values.entries()) {
    const miss = await replay.tape
      .tool('configure', { settings: value, n: i }, () => 'live')
      .catch((e: Error) => e)
    misses.push(String((miss as Error).message))
  }
  printed['miss report'] = misses.join('\n')
  await replay.finish()
  const run = entries.at(-1)?.run
  if (run) written['run file'] = readFileSync(join(root, run), 'utf8')
  // The run summary and its view pages now: the live-tools run of the same cassette below keeps
  // its run in the same file, and its page would take the same path.
  await summarize(entries.splice(0), 'views/missed')

  // A tool that returns the value live: the drift report.
  const live = await open('live-tools')
  for (const [i, value] of values.entries()) {
    await live.tape.tool('configure', { settings: STAND_IN, n: i }, () => 'ok')
    await live.tape.tool('read_config', { n: i }, () => ({ config: value }))
  }
  // The run fails with its first drift; each drifted tool has its report.
  const failure = await live.finish()
  const drifts = live.tape.state.divergences.map((d) => d.message)
  printed['drift report'] = [String(failure?.message), ...drifts].join('\n')
  await summarize(entries.splice(0), 'views/drifted')

  // A cassette written by hand (or by an older version) with the values in every kind of place.
  writeFileSync(join(root, 'a.jsonl'), serializeCassette(handWritten(values, 'first')))
  writeFileSync(join(root, 'b.jsonl'), serializeCassette(handWritten(values, 'second')))
  let verify = -1
  for (const args of [
    ['show', 'a.jsonl', '--full'],
    ['show', 'a.jsonl', '--json'],
    ['diff', 'a.jsonl', 'b.jsonl'],
    ['diff', 'a.jsonl', 'b.jsonl', '--json'],
    ['view', 'a.jsonl', '-o', 'run.html'],
    ['view', 'a.jsonl', 'b.jsonl', '-o', 'diff.html'],
    ['verify', 'a.jsonl'],
    ['textconv', 'a.jsonl'],
  ]) {
    const { code, output } = await cli(args, root, env)
    printed[args.join(' ')] = output
    if (args[0] === 'view')
      printed[`${args.join(' ')} (page)`] = readFileSync(join(root, args.at(-1)!), 'utf8')
    if (args[0] === 'verify') verify = code
  }
  return { printed, written, verify }
}

/** What a page shows: its data, without its script (which knows what a redaction marker looks like). */
export function shown(output: string): string {
  const data = /<script type="application\/json" id="agent-tape-data">([\s\S]*?)<\/script>/.exec(output)
  return data ? data[1]! : output
}

function pages(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.html'))
      .map((e) => join(e.parentPath, e.name))
  } catch {
    return []
  }
}

/** A cassette with each value in a tool's arguments and result, a streamed answer and a binary body. */
function handWritten(values: readonly unknown[], variant: string): Cassette {
  return {
    header: {
      agentTape: 2,
      keyScheme: 1,
      test: `printers > ${variant}`,
      recordedAt: '2026-01-01T00:00:00.000Z',
    },
    decisions: values.flatMap((value, i) => decisionsWith(value, variant, 3 * i)),
  }
}

function decisionsWith(value: unknown, variant: string, seq: number): DecisionRecord[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  const at = Math.floor(text.length / 2)
  const chunk = (content: string, t: number) => ({ t, json: { choices: [{ index: 0, delta: { content } }] } })
  const key = (kind: string) => `${kind}:${(seq + 1).toString(16).padStart(16, '0')}` as const
  return [
    {
      seq: seq + 1,
      key: key('tool'),
      kind: 'tool',
      step: seq,
      ms: 1,
      in: { name: 'configure', args: [{ settings: value, variant }] },
      out: { config: value },
    },
    {
      seq: seq + 2,
      key: key('llm'),
      kind: 'llm',
      step: seq + 1,
      ms: 5,
      in: {
        api: 'openai-chat',
        method: 'POST',
        path: '/v1/chat/completions',
        body: { model: 'gpt-4o', messages: [{ role: 'user', content: `${variant}: ${text}` }] },
      },
      out: {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: {
          sse: [
            chunk(`${variant} ${text.slice(0, at)}`, 1),
            chunk(text.slice(at), 2),
            { t: 3, data: '[DONE]' },
          ],
        },
      },
    },
    {
      seq: seq + 3,
      key: key('http'),
      kind: 'http',
      step: seq + 1,
      ms: 2,
      in: { method: 'GET', url: 'https://files.example.com/settings' },
      out: {
        status: 200,
        headers: { 'content-type': 'application/octet-stream' },
        body: { base64: Buffer.from(`${variant}\n${text}`).toString('base64') },
      },
    },
  ]
}

async function cli(args: string[], cwd: string, env: Record<string, string>) {
  let output = ''
  const write = (text: string) => {
    output += text
  }
  const code = await main(args, { stdout: write, stderr: write, env, cwd, style: createStyle(false) })
  return { code, output }
}
