import { runWithTape, type Tape } from '@agent-tape/core/internal'
import { buildSetupRerecordCommand } from './rerecord-command.js'
import { carriesFailure, isSameFailure } from './tape-failure.js'
import { openTestTape, type TestTapeInput } from './test-tape.js'

/** The hooks a setup tape runs: once before, or once after, the tests of a file or describe block. */
export type SetupHook = 'beforeAll' | 'afterAll'

export const SETUP_HOOKS: readonly SetupHook[] = ['beforeAll', 'afterAll']

/** What the body of a setup tape is given: its tape, as a test's body is given its own. */
export interface SetupTapeContext {
  tape: Tape
}

export interface SetupTapeInput
  extends Omit<TestTapeInput, 'name' | 'names' | 'uniqueName' | 'rerecordCommand' | 'testTimeoutMs'> {
  hook: SetupHook
  /** The describe blocks around the hook, outermost first (none for a hook of the file). */
  describes: readonly string[]
  body(context: SetupTapeContext): unknown
  /** The hook's timeout, which a replay paced as recorded must not outlast. */
  timeoutMs?: number
}

/**
 * The names a setup tape is claimed and reported under: its describe blocks, then the hook, so
 * its cassette is `__cassettes__/<test file>/<describe>/…/beforeAll.jsonl`, beside the cassettes
 * of the tests it runs before (decision 0039).
 */
export function setupTapeNames(describes: readonly string[], hook: SetupHook): string[] {
  return [...describes, hook]
}

/** The hook as its failures name it: `beforeAll.tape of describe "weather"`, or `… of test/a.test.ts`. */
export function describeSetupHook(hook: SetupHook, testFile: string, describes: readonly string[]): string {
  const scope = describes.length > 0 ? `describe ${JSON.stringify(describes.join(' > '))}` : testFile
  return `${hook}.tape of ${scope}`
}

/**
 * Runs a setup hook's body inside a tape of its own, as a test runs inside its tape: opened
 * before the body, the current tape while it runs (so an MCP client it connects is connected
 * by this tape, and its handshake is this cassette's), finished after it. A failure of the tape
 * (a miss, unused decisions) is thrown as the hook's, naming the hook and the command that
 * re-records it; the body's own error follows as its cause.
 */
export async function runSetupTape(input: SetupTapeInput): Promise<void> {
  const { hook, describes, body, timeoutMs, ...rest } = input
  const rerecordCommand = buildSetupRerecordCommand({
    runner: input.runner,
    testFile: input.testFile,
    describes,
    exec: input.exec,
  })
  const { tape, finish } = await openTestTape({
    ...rest,
    names: setupTapeNames(describes, hook),
    name: hook,
    rerecordCommand,
    ...(timeoutMs ? { testTimeoutMs: timeoutMs } : {}),
  })
  let failed = false
  let bodyError: unknown
  try {
    await runWithTape(tape, () => body({ tape }))
  } catch (error) {
    failed = true
    bodyError = error
  }
  const failure = await finish()
  if (!failure) {
    if (failed) throw bodyError
    return
  }
  if (failed && !isSameFailure(bodyError, failure) && !carriesFailure(bodyError, failure)) {
    Object.defineProperty(failure, 'cause', { value: bodyError, configurable: true })
  }
  throw namingTheHook(failure, describeSetupHook(hook, input.testFile, describes), {
    command: rerecordCommand,
    what: describes.length > 0 ? 'this block' : "this file's tests",
  })
}

/**
 * The failure with the hook named first (`[agent-tape] In beforeAll.tape of describe "weather":
 * Replay miss …`), and its re-record command called what it re-records: core's reports say
 * `re-record this test: <command>`, and a setup tape's command runs the tests of its block.
 */
function namingTheHook(failure: Error, label: string, rerecord: { command: string; what: string }): Error {
  const prefix = '[agent-tape] '
  const reworded = rewordRerecord(failure.message, rerecord.command, rerecord.what)
  const message = reworded.startsWith(prefix)
    ? `${prefix}In ${label}: ${reworded.slice(prefix.length)}`
    : `In ${label}: ${reworded}`
  const stack = failure.stack?.replace(failure.message, () => message)
  Object.defineProperty(failure, 'message', { value: message, configurable: true, writable: true })
  if (stack) Object.defineProperty(failure, 'stack', { value: stack, configurable: true, writable: true })
  return failure
}

/**
 * `re-record this test` (or `the test`) said of `command`, on the line that gives it, as `what`
 * says it: `re-record this block: npx vitest run test/a.test.ts -t '^weather ' …`. A line
 * without the command is left as it is.
 *
 * @example
 * rewordRerecord('If the change is intended, re-record this test: npx jest', 'npx jest', 'this block')
 * // 'If the change is intended, re-record this block: npx jest'
 */
function rewordRerecord(message: string, command: string, what: string): string {
  return message
    .split('\n')
    .map((line) =>
      line.includes(command)
        ? line.replace(/\b([Rr]e-record) (?:this|the) test\b/g, (_, verb: string) => `${verb} ${what}`)
        : line,
    )
    .join('\n')
}
