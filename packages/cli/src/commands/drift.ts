import { appendFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { maskForPrinting, parseCassette } from '@agent-tape/core/internal'
import { HELP_OPTION, usageError } from '../args.js'
import { findCassettes } from '../cassette-files.js'
import type { CliIo, Command } from '../command.js'
import type { DriftClass } from '../drift/classify.js'
import { DriftCommandError, runDrift } from '../drift/drift-run.js'
import { countClasses, renderDriftJson, renderDriftMarkdown, renderDriftText } from '../drift/render-drift.js'
import { fitToWidth } from '../output/fit.js'

const COMMAND = 'agent-tape drift'
const FAIL_ON: readonly DriftClass[] = ['model', 'tools', 'code', 'budget', 'error']
const DEFAULT_FAIL_ON: readonly DriftClass[] = ['model', 'tools', 'code', 'error']

export const driftCli: Command = {
  spec: {
    name: 'drift',
    args: '[paths…] [-- <test command>]',
    summary: 'Run the tests live and say what moved under each: the model, a tool, or the code.',
    description: [
      'Runs the tests twice. First replaying: a test whose code asks for a request its cassette does not hold is "code" (the code changed the request), and sends nothing live. Then the other tests live (mode update), each recording written to a scratch folder instead of over the committed cassette (AGENT_TAPE_CASSETTE_OUT), and compared with it by its first differing decision: the same model request answered differently is "model"; a tool call, MCP call or environment read answered differently is "tools"; a recording the same as the committed one is "unchanged". The committed cassettes are only read.',
      'The tests run with the project\'s runner (Vitest or Jest, from its config file or package.json), or with the command after --; cassettes named on the command line are the tests classified, and other arguments are passed to the runner as test filters. --budget-usd and --budget-tokens hold the live run to a budget: before each live model request, its estimate (the tokens of the committed decision it repeats, priced today) and what was spent so far must fit, or it is refused, its test is "not run (budget)", and nothing more is sent. The spending is kept in a ledger that the runner\'s workers share.',
      'Prints a table (--json: JSON), and writes the same as Markdown to --markdown <file>, and appends it to $GITHUB_STEP_SUMMARY when that is set. Exit code 1 when a class named by --fail-on is found (default model,tools,code,error), 0 otherwise; 2 for bad arguments or a test command that ran no tape.',
    ],
    options: {
      'fail-on': {
        type: 'string',
        value: '<classes>',
        description: `The classes that fail the run, comma-separated, of ${FAIL_ON.join(', ')} (default ${DEFAULT_FAIL_ON.join(',')})`,
      },
      'budget-usd': {
        type: 'string',
        value: '<usd>',
        description: 'The most the live model requests may cost, in US dollars at the price table',
      },
      'budget-tokens': {
        type: 'string',
        value: '<n>',
        description: 'The most tokens (input and output) the live model requests may use',
      },
      markdown: { type: 'string', value: '<file>', description: 'Write the report as Markdown to this file' },
      json: { type: 'boolean', description: 'Print the report as JSON' },
      help: HELP_OPTION,
    },
    positionals: { min: 0, max: Number.POSITIVE_INFINITY },
    command: '<test command> [args…]',
    examples: [
      'agent-tape drift',
      'agent-tape drift --budget-usd 1 --markdown "$GITHUB_STEP_SUMMARY"',
      'agent-tape drift --fail-on model,tools test/__cassettes__/agent.test.ts',
      'agent-tape drift --budget-tokens 20000 -- npx vitest run --project agents',
    ],
  },
  async run({ values, positionals, command }, io) {
    const failOn = parseFailOn(values['fail-on'])
    const budget = {
      ...positiveNumber(values['budget-usd'], '--budget-usd', 'usd'),
      ...positiveNumber(values['budget-tokens'], '--budget-tokens', 'tokens'),
    }
    const { cassettes, filters } = await selectTests(positionals, io)
    const scratch = await mkdtemp(join(tmpdir(), 'agent-tape-drift-'))
    let report: Awaited<ReturnType<typeof runDrift>>
    try {
      report = await runDrift({
        cwd: io.cwd,
        env: io.env,
        scratch,
        command,
        filters,
        cassettes,
        budget: Object.keys(budget).length > 0 ? budget : undefined,
        output: (text) => io.stderr(text),
      })
    } catch (error) {
      if (!(error instanceof DriftCommandError)) throw error
      throw usageError(
        COMMAND,
        `${error.message}: it printed the output above`,
        'Run the test command on its own until it runs the tests, or give the one that does after --',
      )
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
    const counts = countClasses(report.rows)
    const found = failOn.filter((c) => counts[c] > 0)
    const exitCode = found.length > 0 ? 1 : 0
    if (values.json) io.stdout(renderDriftJson(report, failOn, exitCode))
    else io.stdout(fitToWidth(renderDriftText(report, io.style), io.columns))
    const markdown = maskForPrinting(renderDriftMarkdown(report), io.env)
    const file = typeof values.markdown === 'string' ? resolve(io.cwd, values.markdown) : undefined
    const summary = io.env.GITHUB_STEP_SUMMARY ? resolve(io.cwd, io.env.GITHUB_STEP_SUMMARY) : undefined
    if (file && file !== summary) writeFileSync(file, markdown)
    if (summary) appendFileSync(summary, markdown)
    if (!values.json && found.length > 0) {
      io.stderr(`Drift found: ${found.join(', ')} (--fail-on ${failOn.join(',')})\n`)
    }
    return exitCode
  },
}

function parseFailOn(value: unknown): readonly DriftClass[] {
  if (typeof value !== 'string') return DEFAULT_FAIL_ON
  const names = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
  const unknown = names.filter((n) => !(FAIL_ON as readonly string[]).includes(n))
  if (names.length === 0 || unknown.length > 0) {
    throw usageError(
      COMMAND,
      `--fail-on ${JSON.stringify(value)} names ${unknown.length > 0 ? `no class ${unknown.map((u) => JSON.stringify(u)).join(', ')}` : 'no class'}; the classes are ${FAIL_ON.join(', ')}`,
      'Name one or more, comma-separated: --fail-on model,tools',
    )
  }
  return names as DriftClass[]
}

function positiveNumber(value: unknown, flag: string, field: 'usd' | 'tokens'): Record<string, number> {
  if (typeof value !== 'string') return {}
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || (field === 'tokens' && !Number.isInteger(n))) {
    throw usageError(
      COMMAND,
      `${flag} ${JSON.stringify(value)} is not ${field === 'tokens' ? 'a whole number of tokens' : 'an amount in US dollars'}`,
      field === 'tokens' ? `Give a count: ${flag} 20000` : `Give dollars: ${flag} 1.50`,
    )
  }
  return { [field]: n }
}

/**
 * The arguments: cassettes (`.jsonl` files, folders of them) are the tests to classify, and
 * their test files what the runner runs; anything else is a test filter for the runner.
 */
async function selectTests(
  positionals: readonly string[],
  io: CliIo,
): Promise<{ cassettes: Set<string> | undefined; filters: string[] }> {
  const filters: string[] = []
  const named: string[] = []
  for (const arg of positionals) {
    const info = await stat(resolve(io.cwd, arg)).catch(() => undefined)
    if (arg.endsWith('.jsonl') || (info?.isDirectory() && /(^|[\\/])__cassettes__([\\/]|$)/.test(arg)))
      named.push(arg)
    else filters.push(arg)
  }
  if (named.length === 0) return { cassettes: undefined, filters }
  const { cassettes } = await findCassettes(COMMAND, named, io.cwd)
  if (cassettes.length === 0) {
    throw usageError(
      COMMAND,
      `${named.join(', ')} hold${named.length === 1 ? 's' : ''} no cassette`,
      'Name a cassette, or a __cassettes__ folder',
    )
  }
  for (const file of cassettes) {
    const header = parseCassette(await readFile(file, 'utf8'), file).header
    const testFile = header.test.split(' > ')[0]
    if (testFile && !filters.includes(testFile)) filters.push(testFile)
  }
  return { cassettes: new Set(cassettes), filters }
}
