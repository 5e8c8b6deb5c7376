import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import {
  type Cassette,
  describeDecision,
  findCassetteSecrets,
  formatMessage,
  parseCassette,
  SecretScanner,
  secretEnvValues,
  serializeCassette,
} from '@agent-tape/core/internal'
import { writeFileAtomic } from '@agent-tape/core/node'
import { cassettePathFor, DEFAULT_CASSETTE_DIR, toPosix } from '@agent-tape/runner-kit'
import { ALLOW_SECRET_OPTION, HELP_OPTION, usageError } from '../args.js'
import { displayPath } from '../cassette-files.js'
import type { Command } from '../command.js'
import { detectRunner, resolveEntry } from '../promote/entry.js'
import { findRunByTrace } from '../promote/find-by-trace.js'
import { type PromoteRunner, promotedTest, renderTestFile } from '../promote/test-code.js'
import { readTapeNames } from '../prune/tape-names.js'
import { packageRootOf } from '../verify/package-root.js'

const COMMAND = 'agent-tape promote'

/** Kinds whose decisions always carry an answer once the run has it (a request's response). */
const ANSWERED_KINDS = new Set(['llm', 'http', 'mcp'])

export const promoteCli: Command = {
  spec: {
    name: 'promote',
    args: '<captured-cassette>',
    summary:
      'Turn a captured run or a recorded command into a test: place its cassette where the runner looks, and write the test.',
    description: [
      'Reads a cassette written by @agent-tape/capture or agent-tape record, checks it (its format, every line; secrets, as verify scans them; that every request of the run has its answer), and copies it to <test dir>/__cassettes__/<test file>/<name>.jsonl, where the tape <name> of the test file finds it. Then it writes the test file when it does not exist, or prints the test to add when it does. For a captured run: an it.tape test that calls the entry with the captured input and asserts what the captured run returned or threw. For a recorded command: a test that replays the command with replayCommand and asserts that it replays cleanly and exits with the recorded code. Either replays at once, with no network and no API key.',
      'Nothing is written when a check fails, when the test already has a cassette of that name (unless --force), or when the entry cannot be found. Exit code 0 when promoted, 1 when the cassette holds a secret, 2 on bad arguments or a damaged file.',
    ],
    options: {
      name: {
        type: 'string',
        value: '<name>',
        description: 'The tape name of the test (its cassette file name), e.g. issue-412',
      },
      test: {
        type: 'string',
        value: '<file>',
        description: 'The test file to write or add the test to, e.g. test/agent.test.ts',
      },
      entry: {
        type: 'string',
        value: '<file>#<export>',
        description:
          'The function the test calls with the captured input (default export without #); without it, the test is printed with a placeholder to complete',
      },
      runner: {
        type: 'string',
        value: '<vitest|jest>',
        description: "The test runner (default: the one the test's project uses)",
      },
      trace: {
        type: 'string',
        value: '<trace id>',
        description:
          'Find the captured run by the OpenTelemetry trace it ran in: the argument is then the capture folder, or a listing of the files a sink wrote (one path a line)',
      },
      force: { type: 'boolean', description: 'Replace a cassette the test already has under that name' },
      'allow-secret': ALLOW_SECRET_OPTION,
      help: HELP_OPTION,
    },
    positionals: { min: 1, max: 1 },
    examples: [
      'agent-tape promote captures/2026-12-01T12-26-02.123Z_triage_k3j9x2p1qmzt.jsonl --name issue-412 --test test/agent.test.ts --entry src/agent.ts#runAgent',
      'agent-tape promote captures --trace 4bf92f3577b34da6a3ce929d0e0e4736 --name issue-412 --test test/agent.test.ts --entry src/agent.ts#runAgent',
    ],
  },
  async run({ values, positionals }, io) {
    const name = required(values.name, '--name <name>', '--name issue-412')
    const testOption = required(values.test, '--test <file>', '--test test/agent.test.ts')
    const source =
      typeof values.trace === 'string'
        ? displayPath(await findRunByTrace(positionals[0]!, values.trace, io.cwd), io.cwd)
        : positionals[0]!
    const file = resolve(io.cwd, source)
    const info = await stat(file).catch(() => undefined)
    if (!info?.isFile())
      throw usageError(
        COMMAND,
        `${source} does not exist or is not a file`,
        'Pass the path of a captured run (.jsonl)',
      )
    const cassette = parseCassette(await readFile(file, 'utf8'), displayPath(file, io.cwd))
    if (cassette.decisions.length === 0) {
      throw usageError(
        COMMAND,
        `${displayPath(file, io.cwd)} has a header and no decisions: the run crossed no boundary agent-tape records (no model request, tool or HTTP call went through it), so its test would replay nothing`,
        'Promote a run that made its model requests inside the captured run; if they went to a host agent-tape does not know as a model API, declare it with modelEndpoints. Nothing was written',
      )
    }

    const testFile = resolve(io.cwd, testOption)
    const root = packageRootOf(testFile, io.cwd)
    const testPath = toPosix(relative(root, testFile))
    if (testPath.startsWith('..'))
      throw usageError(COMMAND, `--test ${testOption} is outside its project ${root}`)
    const target = resolve(
      root,
      cassettePathFor({ testFile: testPath, name, cassetteDir: DEFAULT_CASSETTE_DIR }),
    )
    const runner = detectRunner(root, values.runner)
    const entry =
      typeof values.entry === 'string' ? resolveEntry(values.entry, io.cwd, testFile, runner) : undefined
    // Checked before anything is written: the test code needs a source it knows.
    const typescript = /\.[cm]?tsx?$/.test(testFile)
    const cassetteFromTest = toPosix(relative(dirname(testFile), target))
    const test = promotedTest({
      name,
      header: cassette.header,
      runner,
      entry,
      typescript,
      cassette: cassetteFromTest,
    })

    const allow = (Array.isArray(values['allow-secret']) ? values['allow-secret'] : []).filter(
      (v): v is string => typeof v === 'string',
    )
    const scanner = new SecretScanner(secretEnvValues(io.env), allow)
    const secrets = findCassetteSecrets(cassette, scanner)
    if (secrets.length > 0) {
      const at = (f: (typeof secrets)[number]) =>
        f.where === 'the header' ? `the header's ${f.path.replace(/^header\./, '')}` : `${f.where} ${f.path}`
      const lines = secrets.slice(0, 10).map((f) => `  ${at(f)}: ${f.label} (${f.preview})`)
      io.stderr(
        `${formatMessage({
          what: `Refusing to promote ${displayPath(file, io.cwd)}`,
          why: `${at(secrets[0]!)} holds ${secrets[0]!.label} (${secrets[0]!.preview}), and a promoted cassette is committed with the test`,
          fix: 'Capture the run again with the secret kept out or redacted (redactors), or, if the value is not a secret, pass it with --allow-secret. Nothing was written',
          details: lines,
        })}\n`,
      )
      return 1
    }
    // The test is committed too, and printed when its file exists: the whole of it is scanned, as
    // the cassette was (a command line keeps its placeholders; a name or a path could hold a key).
    const inTest = scanner.findInJson(renderTestFile(test), 'the test')
    if (inTest.length > 0) {
      io.stderr(
        `${formatMessage({
          what: `Refusing to promote ${displayPath(file, io.cwd)}`,
          why: `the test it would write to ${testPath} holds ${inTest[0]!.label} (${inTest[0]!.preview}), and a test is committed`,
          fix: 'Keep the secret out of --name, --test and the recorded command (record it again), or, if the value is not a secret, pass it with --allow-secret. Nothing was written',
        })}\n`,
      )
      return 1
    }
    const unanswered = cassette.decisions.filter(
      (d) => ANSWERED_KINDS.has(d.kind) && d.out === undefined && d.err === undefined,
    )
    if (unanswered.length > 0) {
      const d = unanswered[0]!
      throw usageError(
        COMMAND,
        `decision #${d.seq} (${describeDecision(d.kind, d.in)}, step ${d.step}) of ${displayPath(file, io.cwd)} has no recorded answer (the run's recording was cut off while it was in flight), so a replay could not answer it`,
        'Promote another captured run of this failure. Nothing was written',
      )
    }

    if (existsSync(target) && values.force !== true) {
      throw usageError(
        COMMAND,
        `${displayPath(target, io.cwd)} exists: the tape "${name}" of ${testPath} already has a cassette`,
        'Choose another --name, or pass --force to replace it. Nothing was written',
      )
    }
    const testExists = existsSync(testFile)
    if (
      testExists &&
      values.force !== true &&
      readTapeNames(readFileSync(testFile, 'utf8')).names.has(name)
    ) {
      throw usageError(
        COMMAND,
        `${testPath} already declares a tape "${name}"`,
        'Choose another --name, or pass --force to place the cassette for that test. Nothing was written',
      )
    }

    const promoted: Cassette = {
      header: { ...cassette.header, test: `${testPath} > ${name}` },
      decisions: cassette.decisions,
    }
    await writeFileAtomic(target, serializeCassette(promoted))
    // A command's test needs no entry: it runs the command again.
    const written = !testExists && (entry !== undefined || cassette.header.source?.kind === 'command')
    if (written) {
      try {
        await mkdir(dirname(testFile), { recursive: true })
        await writeFile(testFile, renderTestFile(test), { flag: 'wx' })
      } catch (error) {
        await rm(target, { force: true })
        throw error
      }
    }
    io.stdout(
      report({
        cassette,
        target,
        testFile,
        name,
        runner,
        written,
        entry: entry !== undefined || cassette.header.source?.kind === 'command',
        test,
        io,
      }),
    )
    return 0
  },
}

function report(input: {
  cassette: Cassette
  target: string
  testFile: string
  name: string
  runner: PromoteRunner
  written: boolean
  entry: boolean
  test: { imports: string[]; block: string[] }
  io: { cwd: string; style: { bold(text: string): string } }
}): string {
  const { cassette, target, testFile, name, runner, written, test, io } = input
  const n = cassette.decisions.length
  const lines = [`Wrote ${displayPath(target, io.cwd)} (${n} decision${n === 1 ? '' : 's'}).`]
  const shown = displayPath(testFile, io.cwd)
  if (written) lines.push(`Wrote ${shown} with the test ${JSON.stringify(name)}.`)
  else {
    lines.push(
      '',
      input.entry
        ? `${shown} exists: add this test to it (and the imports it lacks):`
        : `Complete this test (pass --entry <file>#<export> to have it written) and add it to ${shown}:`,
      '',
      ...test.imports,
      '',
      ...test.block,
    )
  }
  const run =
    runner === 'vitest' ? `npx vitest run ${shown} -t '^${name}$'` : `npx jest ${shown} -t '^${name}$'`
  lines.push('', `Run it (it replays, with no network and no API key): ${io.style.bold(run)}`)
  return `${lines.join('\n')}\n`
}

function required(value: unknown, option: string, example: string): string {
  if (typeof value === 'string' && value !== '') return value
  throw usageError(COMMAND, `${option} is required`, `Pass e.g. ${example}`)
}
