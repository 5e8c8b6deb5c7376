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

it('asserts what a run that succeeded returned, with the input typed as the entry takes it', () => {
  const test = promotedTest({
    name: 'issue-412',
    header: header({ ticket: 'INV-412' }, { ok: true, value: { refunded: 4200 } }),
    runner: 'vitest',
    entry,
    typescript: true,
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
  })
  expect(bare.imports[1]).toBe(
    "// TODO: import the agent's entry, e.g. import { runAgent } from '../src/agent'",
  )
  expect(bare.block.slice(-3)).toEqual(['  }', '  await runAgent(input)', '})'])
})

it('refuses a cassette that was not captured in a server', () => {
  const test = { agentTape: 2, keyScheme: 1, test: 't > x', recordedAt: '2026-12-01T00:00:00.000Z' }
  const command = { ...test, source: { kind: 'command' as const, argv: ['node', 'agent.js'], cwd: '.' } }
  for (const [h, why] of [
    [test, 'its header says it was recorded by a test'],
    [command, 'it records a command (agent-tape record)'],
  ] as const) {
    expect(() => promotedTest({ name: 'x', header: h, runner: 'vitest', entry, typescript: true })).toThrow(
      why,
    )
  }
})
