import type { CaptureSource, CassetteHeader, CommandSource, RecordingSource } from '@agent-tape/core/internal'
import { usageError } from '../args.js'
import { piecesOf } from '../recorded-command/argument-placeholders.js'

export type PromoteRunner = 'vitest' | 'jest'

/** The function a promoted test calls: `export` is `undefined` for the module's default export. */
export interface PromoteEntry {
  /** The import specifier, relative to the test file, as the runner resolves it. */
  specifier: string
  export: string | undefined
}

/** A test to write: the imports it needs and its `it.tape` block. */
export interface PromotedTest {
  imports: string[]
  block: string[]
}

interface TestInput {
  name: string
  header: CassetteHeader
  runner: PromoteRunner
  /** Where the promoted cassette goes, relative to the test file's folder (`__cassettes__/…`). */
  cassette: string
  /** `undefined` writes a placeholder the user completes (the cassette is placed all the same). */
  entry: PromoteEntry | undefined
  /** The test file is TypeScript: the input is typed as the entry's parameter, and checked. */
  typescript: boolean
}

/**
 * The test that replays a promoted recording, by where it was recorded. A run captured in a
 * server calls the agent's entry with the captured input and asserts what it returned or threw;
 * a command recorded with `agent-tape record` is run again with `replayCommand`, and must replay
 * cleanly and exit as it did.
 */
export function promotedTest(input: TestInput): PromotedTest {
  const source: RecordingSource | undefined = input.header.source
  if (source?.kind === 'capture') return captureTest(source, input)
  if (source?.kind === 'command') {
    if (input.entry) {
      throw usageError(
        'agent-tape promote',
        'it records a command (agent-tape record), which its test runs again as a command; --entry names a function, for runs captured in a server',
        'Leave out --entry',
      )
    }
    return commandTest(source, input)
  }
  throw usageError(
    'agent-tape promote',
    'its header says it was recorded by a test, not captured in a server or by agent-tape record: it already is a test cassette',
    'Pass a cassette written by @agent-tape/capture or agent-tape record',
  )
}

/** A replay of the recorded command from a test: clean, and the command's own exit code. */
function commandTest(source: CommandSource, { name, header, runner, cassette }: TestInput): PromotedTest {
  const imports =
    runner === 'vitest'
      ? [
          "import { fileURLToPath } from 'node:url'",
          "import { replayCommand } from '@agent-tape/cli'",
          "import { expect, it } from 'vitest'",
        ]
      : ["const { join } = require('node:path')", "const { replayCommand } = require('@agent-tape/cli')"]
  const file =
    runner === 'vitest'
      ? `fileURLToPath(new URL(${quote(`./${cassette}`)}, import.meta.url))`
      : `join(__dirname, ${cassette.split('/').map(quote).join(', ')})`
  const exit = source.signal !== undefined ? null : (source.exitCode ?? 0)
  const block = [
    `// Recorded command: ${oneLine(source.argv.join(' '))} (in ${oneLine(source.cwd)}), recorded ${header.recordedAt}.`,
    ...placeholderNote(source.argv),
    source.signal !== undefined
      ? `// It was ended by ${source.signal}; the test asserts it replays cleanly.`
      : `// It exited with code ${exit}; once the failure is fixed, re-record it and assert the code it should exit with.`,
    `it(${quote(name)}, async () => {`,
    `  const run = await replayCommand(${file})`,
    '  // The report says where the replay left the recording, with the diff.',
    '  if (!run.clean) throw new Error(run.report)',
    ...(exit === null ? [] : [`  expect(run.exitCode).toBe(${exit})`]),
    '}, 120_000)',
  ]
  return { imports, block }
}

/** The variables a command's replay fills its placeholders from: the test needs them set. */
function placeholderNote(argv: readonly string[]): string[] {
  const names = [
    ...new Set(argv.flatMap((arg) => piecesOf(arg).flatMap((p) => ('variable' in p ? [p.variable] : [])))),
  ]
  if (names.length === 0) return []
  return [
    `// Its credentials are placeholders, filled from ${names.map((n) => `$${n}`).join(', ')}: set ${names.length === 1 ? 'it' : 'them'} where the test runs.`,
  ]
}

function captureTest(
  source: CaptureSource,
  { name, header, runner, entry, typescript }: TestInput,
): PromotedTest {
  const call = entry?.export ?? (entry ? 'entry' : 'runAgent')
  const imports: string[] = []
  if (entry) {
    imports.push(
      entry.export === undefined
        ? `import ${call} from '${entry.specifier}'`
        : `import { ${call} } from '${entry.specifier}'`,
    )
  } else {
    imports.push(`// TODO: import the agent's entry, e.g. import { ${call} } from '../src/agent'`)
  }
  const block = [...describeRun(source, header), `it.tape(${quote(name)}, async () => {`]
  const args = source.input === undefined ? '' : 'input'
  if (source.input !== undefined) {
    const typed = typescript && entry ? `: Parameters<typeof ${call}>[0]` : ''
    block.push(...literal(`  const input${typed} = `, source.input))
  }
  const outcome = source.outcome
  if (outcome && !outcome.ok && outcome.error) {
    const message = outcome.error.message
    block.push(`  await expect(${call}(${args})).rejects.toThrow(${message === '' ? '' : quote(message)})`)
  } else if (outcome && 'value' in outcome && outcome.value !== undefined) {
    block.push(`  const result = await ${call}(${args})`)
    if (!outcome.ok) {
      block.push(
        '  // What the captured run returned, which the app judged wrong; change it to what it should be.',
      )
    }
    block.push(...literal('  expect(result).toEqual(', outcome.value, ')'))
  } else {
    // Nothing it returned or threw to compare: the replay itself is what the test asserts.
    const opening = block.findIndex((line) => line.startsWith('it.tape('))
    block[opening] = `it.tape(${quote(name)}, async ({ tape }) => {`
    block.push(
      `  await ${call}(${args})`,
      '  // The run left nothing to assert (no answer, no error): it must replay cleanly, every',
      '  // decision answered from the cassette and none left unused.',
      '  expect(tape).toReplayCleanly()',
    )
  }
  block.push('})')
  if (runner === 'vitest') imports.unshift("import { expect, it } from '@agent-tape/vitest'")
  return { imports, block }
}

/** The comment above the test: which run it replays, and how that run ended. */
function describeRun(source: CaptureSource, header: CassetteHeader): string[] {
  const lines = [
    `// Captured run "${oneLine(source.name)}" (${source.runId}), recorded ${header.recordedAt}.`,
  ]
  const outcome = source.outcome
  if (!outcome) lines.push('// Its outcome was not recorded.')
  else if (outcome.ok) lines.push('// It succeeded; the test asserts what it returned.')
  else {
    const how = outcome.error
      ? `threw ${oneLine(outcome.error.name)}: ${oneLine(outcome.error.message)}`
      : 'was marked failed'
    lines.push(
      `// It ${how}${outcome.reason !== undefined ? ` (${oneLine(outcome.reason)})` : ''}. Once fixed, re-record it and assert what it should do.`,
    )
  }
  return lines
}

/** `prefix` + the value as a JavaScript literal (JSON, indented) + `suffix`, as lines. */
function literal(prefix: string, value: unknown, suffix = ''): string[] {
  const lines = JSON.stringify(value, null, 2).split('\n')
  const indent = prefix.length - prefix.trimStart().length
  return lines.map((line, i) => {
    const head = i === 0 ? prefix : ' '.repeat(indent)
    return `${head}${line}${i === lines.length - 1 ? suffix : ''}`
  })
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat
}

/** The whole file of a new test: its imports, a blank line, the test. */
export function renderTestFile(test: PromotedTest): string {
  return `${[...test.imports, '', ...test.block].join('\n')}\n`
}
