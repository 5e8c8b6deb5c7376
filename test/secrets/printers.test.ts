import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStyle, main } from '@agent-tape/cli'
import { type Cassette, serializeCassette } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { finishRun, openTestTape, type TapeSummaryEntry } from '@agent-tape/runner-kit'
import { describe, expect, it } from 'vitest'
import { ORDINARY_TEXTS } from '../support/ordinary-texts.js'
import { printedPieces, SECRET_FORMS, writtenPieces } from '../support/secret-forms.js'

// Every writer of files and every printer, run over every secret form and every ordinary text:
// the miss report, the run file kept for the view, the live-tools drift report, the run summary,
// the GitHub step summary, the divergence view page, and the CLI's show, diff, view and verify
// on a cassette written by hand. A secret shows at most 4 characters anywhere; ordinary text is
// shown as it is.
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

interface Outputs {
  /** What agent-tape printed or wrote for people, by where. */
  printed: Record<string, string>
  /** Files it wrote that may be committed or shared (the run file). */
  written: Record<string, string>
  /** The exit code of `agent-tape verify` on a cassette that holds the value. */
  verify: number
}

/** Runs the value through every writer and printer, and collects what each produced. */
async function throughEveryPrinter(
  id: string,
  value: unknown,
  env: Record<string, string>,
): Promise<Outputs> {
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
  const recording = await open('update')
  await recording.tape.tool('configure', { settings: STAND_IN }, () => 'ok')
  await recording.tape.tool('read_config', {}, () => ({ config: STAND_IN }))
  await recording.finish()

  // A miss on an input that holds the value: the miss report, and the run kept for the view.
  const replay = await open('replay')
  const miss = await replay.tape.tool('configure', { settings: value }, () => 'live').catch((e: Error) => e)
  printed['miss report'] = String((miss as Error).message)
  await replay.finish()
  const run = entries.at(-1)?.run
  if (run) written['run file'] = readFileSync(join(root, run), 'utf8')

  // A tool that returns the value live: the drift report.
  const live = await open('live-tools')
  await live.tape.tool('configure', { settings: STAND_IN }, () => 'ok')
  await live.tape.tool('read_config', {}, () => ({ config: value }))
  printed['drift report'] = String((await live.finish())?.message)

  const stepSummary = join(root, 'step-summary.md')
  await finishRun(
    [{ root, config: { cassetteDir: '__cassettes__', viewDir: 'views' }, entries, collected: [] }],
    {
      prune: false,
      print: (text) => {
        printed['run summary'] = text
      },
      env: { ...env, GITHUB_STEP_SUMMARY: stepSummary },
    },
  )
  printed['step summary'] = readFileSync(stepSummary, 'utf8')
  for (const page of pages(join(root, 'views'))) printed[`view page ${page}`] = readFileSync(page, 'utf8')

  // A cassette written by hand (or by an older version) with the value in every kind of place.
  writeFileSync(join(root, 'a.jsonl'), serializeCassette(handWritten(value, 'first')))
  writeFileSync(join(root, 'b.jsonl'), serializeCassette(handWritten(value, 'second')))
  let verify = -1
  for (const args of [
    ['show', 'a.jsonl', '--full'],
    ['show', 'a.jsonl', '--json'],
    ['diff', 'a.jsonl', 'b.jsonl'],
    ['diff', 'a.jsonl', 'b.jsonl', '--json'],
    ['view', 'a.jsonl', '-o', 'run.html'],
    ['view', 'a.jsonl', 'b.jsonl', '-o', 'diff.html'],
    ['verify', 'a.jsonl'],
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
function shown(output: string): string {
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

function handWritten(value: unknown, variant: string): Cassette {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  const at = Math.floor(text.length / 2)
  const chunk = (content: string, t: number) => ({ t, json: { choices: [{ index: 0, delta: { content } }] } })
  return {
    header: {
      agentTape: 2,
      keyScheme: 1,
      test: `printers > ${variant}`,
      recordedAt: '2026-01-01T00:00:00.000Z',
    },
    decisions: [
      {
        seq: 1,
        key: 'tool:0123456789abcdef',
        kind: 'tool',
        step: 0,
        ms: 1,
        in: { name: 'configure', args: [{ settings: value, variant }] },
        out: { config: value },
      },
      {
        seq: 2,
        key: 'llm:0123456789abcdef',
        kind: 'llm',
        step: 1,
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
        seq: 3,
        key: 'http:0123456789abcdef',
        kind: 'http',
        step: 1,
        ms: 2,
        in: { method: 'GET', url: 'https://files.example.com/settings' },
        out: {
          status: 200,
          headers: { 'content-type': 'application/octet-stream' },
          body: { base64: Buffer.from(`${variant}\n${text}`).toString('base64') },
        },
      },
    ],
  }
}

async function cli(args: string[], cwd: string, env: Record<string, string>) {
  let output = ''
  const write = (text: string) => {
    output += text
  }
  const code = await main(args, { stdout: write, stderr: write, env, cwd, style: createStyle(false) })
  return { code, output }
}

const EVERY_PRINTER = [
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
]

describe.each(SECRET_FORMS.map((f) => [f.class, f.id, f] as const))('secret %s: %s', (_, id, form) => {
  it('is shown by no printer and written by no writer', async () => {
    const { printed, written, verify } = await throughEveryPrinter(id, form.value, form.env ?? {})
    expect(Object.keys(printed)).toEqual(expect.arrayContaining(EVERY_PRINTER))
    expect(printed['miss report']).toContain('Replay miss')
    expect(printed['drift report']).toContain('Tool drift')
    expect(
      Object.keys(printed).some((k) => k.startsWith('view page ')),
      printed['run summary'],
    ).toBe(true)
    for (const [where, text] of Object.entries(printed)) expect(printedPieces(text, form), where).toEqual([])
    for (const [where, text] of Object.entries(written)) expect(writtenPieces(text, form), where).toEqual([])
    expect(verify, printed['verify a.jsonl']).toBe(1)
  })
})

describe.each(ORDINARY_TEXTS.map((t) => [t.category, t.id, t] as const))('ordinary %s: %s', (_, id, text) => {
  it('is shown by every printer as it is', async () => {
    const { printed, written, verify } = await throughEveryPrinter(id, text.value, text.env ?? {})
    expect(Object.keys(printed)).toEqual(expect.arrayContaining(EVERY_PRINTER))
    expect(written['run file']).toBeDefined()
    if (!JSON.stringify(text.value).includes('REDACTED')) {
      for (const [where, output] of Object.entries({ ...printed, ...written }))
        expect(shown(output), where).not.toContain('[REDACTED')
    }
    expect(verify, printed['verify a.jsonl']).toBe(0)
  })
})
