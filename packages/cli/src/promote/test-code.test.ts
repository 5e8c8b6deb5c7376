import type { CaptureOutcome, CassetteHeader } from '@agent-tape/core/internal'
import { expect, it } from 'vitest'
import { promotedTest, renderTestFile } from './test-code.js'

function header(input: unknown, outcome: CaptureOutcome | undefined): CassetteHeader {
  return {
    agentTape: 2,
    keyScheme: 1,
    test: 'triage (captured run k3j9x2p1qmzt)',
    recordedAt: '2026-12-01T12:26:03.402Z',
    source: {
      kind: 'capture',
      name: 'triage',
      runId: 'k3j9x2p1qmzt',
      ...(input === undefined ? {} : { input }),
      ...(outcome ? { outcome } : {}),
    },
  }
}

const entry = { specifier: '../src/agent.js', export: 'runAgent' }
const CASSETTE = '__cassettes__/agent.test.ts/issue-412.jsonl'

it('asserts what a run that succeeded returned, with the input typed as the entry takes it', () => {
  const test = promotedTest({
    name: 'issue-412',
    header: header({ ticket: 'INV-412' }, { ok: true, value: { refunded: 4200 } }),
    runner: 'vitest',
    entry,
    typescript: true,
    cassette: CASSETTE,
  })
  expect(renderTestFile(test)).toBe(`import { expect, it } from '@agent-tape/vitest'
import { runAgent } from '../src/agent.js'

// Captured run "triage" (k3j9x2p1qmzt), recorded 2026-12-01T12:26:03.402Z.
// It succeeded; the test asserts what it returned.
it.tape('issue-412', async () => {
  const input: Parameters<typeof runAgent>[0] = {
    "ticket": "INV-412"
  }
  const result = await runAgent(input)
  expect(result).toEqual({
    "refunded": 4200
  })
})
`)
})

it('asserts the message of a run that threw, quoted as JavaScript whatever it holds', () => {
  const test = promotedTest({
    name: 'quote',
    header: header('INV-1', {
      ok: false,
      error: { name: 'TypeError', message: "can't refund\nINV-1 \\ twice" },
    }),
    runner: 'jest',
    entry: { specifier: '../src/agent', export: undefined },
    typescript: false,
    cassette: CASSETTE,
  })
  expect(test.imports).toEqual(["import entry from '../src/agent'"])
  expect(test.block).toEqual([
    '// Captured run "triage" (k3j9x2p1qmzt), recorded 2026-12-01T12:26:03.402Z.',
    "// It threw TypeError: can't refund INV-1 \\ twice. Once fixed, re-record it and assert what it should do.",
    "it.tape('quote', async () => {",
    '  const input = "INV-1"',
    "  await expect(entry(input)).rejects.toThrow('can\\'t refund\\nINV-1 \\\\ twice')",
    '})',
  ])
})

it('a run marked failed asserts what it returned and says why it was marked; a run without input calls the entry bare', () => {
  const marked = promotedTest({
    name: 'wrong',
    header: header(undefined, {
      ok: false,
      reason: 'the user reported a wrong refund',
      value: 'Refunded 42.00',
    }),
    runner: 'vitest',
    entry,
    typescript: true,
    cassette: CASSETTE,
  })
  expect(marked.block.slice(1)).toEqual([
    '// It was marked failed (the user reported a wrong refund). Once fixed, re-record it and assert what it should do.',
    "it.tape('wrong', async () => {",
    '  const result = await runAgent()',
    '  // What the captured run returned, which the app judged wrong; change it to what it should be.',
    '  expect(result).toEqual("Refunded 42.00")',
    '})',
  ])
  const bare = promotedTest({
    name: 'no-entry',
    header: header({ a: 1 }, { ok: true }),
    runner: 'vitest',
    entry: undefined,
    typescript: true,
    cassette: CASSETTE,
  })
  expect(bare.imports[1]).toBe(
    "// TODO: import the agent's entry, e.g. import { runAgent } from '../src/agent'",
  )
  expect(bare.block.slice(-6)).toEqual([
    '  }',
    '  await runAgent(input)',
    '  // The run left nothing to assert (no answer, no error): it must replay cleanly, every',
    '  // decision answered from the cassette and none left unused.',
    '  expect(tape).toReplayCleanly()',
    '})',
  ])
  expect(bare.block).toContain("it.tape('no-entry', async ({ tape }) => {")
  // What a run marked failed answered without returning a value: asserted as cleanly replayed.
  const answerless = promotedTest({
    name: 'answerless',
    header: header(undefined, { ok: false, reason: 'the user reported it' }),
    runner: 'jest',
    entry,
    typescript: false,
    cassette: CASSETTE,
  })
  expect(answerless.block.slice(-5)).toEqual([
    '  await runAgent()',
    '  // The run left nothing to assert (no answer, no error): it must replay cleanly, every',
    '  // decision answered from the cassette and none left unused.',
    '  expect(tape).toReplayCleanly()',
    '})',
  ])
})

it('refuses a cassette recorded by a test, and --entry for a recorded command', () => {
  const test = { agentTape: 2, keyScheme: 1, test: 't > x', recordedAt: '2026-12-01T00:00:00.000Z' }
  const command = { ...test, source: { kind: 'command' as const, argv: ['node', 'agent.js'], cwd: '.' } }
  for (const [h, why] of [
    [test, 'its header says it was recorded by a test'],
    [command, 'it records a command (agent-tape record), which its test runs again as a command'],
  ] as const) {
    const input = {
      name: 'x',
      header: h,
      runner: 'vitest' as const,
      entry,
      typescript: true,
      cassette: CASSETTE,
    }
    expect(() => promotedTest(input)).toThrow(why)
  }
})

it('replays a recorded command: clean, and exiting with the recorded code, in Vitest and in Jest', () => {
  const header = {
    agentTape: 2,
    keyScheme: 1,
    test: 'command',
    recordedAt: '2026-12-01T12:26:03.402Z',
    source: {
      kind: 'command' as const,
      argv: ['node', 'dist/agent.js', '--task', 'refund it'],
      cwd: '.',
      exitCode: 1,
    },
  }
  const input = { name: 'issue-412', header, entry: undefined, typescript: true, cassette: CASSETTE }
  expect(
    renderTestFile(promotedTest({ ...input, runner: 'vitest' })),
  ).toBe(`import { fileURLToPath } from 'node:url'
import { replayCommand } from '@agent-tape/cli'
import { expect, it } from 'vitest'

// Recorded command: node dist/agent.js --task refund it (in .), recorded 2026-12-01T12:26:03.402Z.
// It exited with code 1; once the failure is fixed, re-record it and assert the code it should exit with.
it('issue-412', async () => {
  const run = await replayCommand(fileURLToPath(new URL('./__cassettes__/agent.test.ts/issue-412.jsonl', import.meta.url)))
  // The report says where the replay left the recording, with the diff.
  if (!run.clean) throw new Error(run.report)
  expect(run.exitCode).toBe(1)
}, 120_000)
`)
  const jest = promotedTest({ ...input, runner: 'jest' })
  expect(jest.imports).toEqual([
    "const { join } = require('node:path')",
    "const { replayCommand } = require('@agent-tape/cli')",
  ])
  expect(jest.block).toContain(
    "  const run = await replayCommand(join(__dirname, '__cassettes__', 'agent.test.ts', 'issue-412.jsonl'))",
  )
  const killed = promotedTest({
    ...input,
    runner: 'vitest',
    header: { ...header, source: { ...header.source, exitCode: null, signal: 'SIGTERM' } },
  })
  expect(killed.block).toContain('// It was ended by SIGTERM; the test asserts it replays cleanly.')
  expect(killed.block.join('\n')).not.toContain('run.exitCode')
})
