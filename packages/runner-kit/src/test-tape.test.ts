import {
  createMemoryStore,
  type HarnessProvider,
  parseCassette,
  tapeInternals,
} from '@agent-tape/core/internal'
import { expect, it } from 'vitest'
import type { TapeSummaryEntry } from './tape-summary.js'
import { openTestTape, type TestTapeInput } from './test-tape.js'

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
const PATH = 'test/__cassettes__/agent.test.ts/billing/refund.jsonl'

function setup(extra: Partial<TestTapeInput> = {}) {
  const store = createMemoryStore()
  const entries: TapeSummaryEntry[] = []
  const open = (more: Partial<TestTapeInput> = {}) =>
    openTestTape({
      runner: 'vitest',
      exec: 'npx',
      testFile: 'test/agent.test.ts',
      names: ['billing', 'refund'],
      name: 'refund',
      root: '/project',
      store,
      config: CONFIG,
      runtime: {},
      harnessProvider: () => {
        throw new Error('no harness paths were given')
      },
      usage: (d) => (d.kind === 'llm' ? { input: 100, output: 10 } : undefined),
      env: {},
      report: (entry) => entries.push(entry),
      ...extra,
      ...more,
    })
  return { store, entries, open }
}

it('records the cassette beside the test file and reports the entry when the test finishes', async () => {
  const { store, entries, open } = setup()
  const { tape, finish } = await open()
  await tape.call('llm', { model: 'gpt-4o' }, () => 'answer')
  expect(await finish()).toBeUndefined()
  expect(entries).toMatchObject([
    { test: 'test/agent.test.ts > billing > refund', cassettePath: PATH, status: 'recorded' },
  ])
  expect(await store.read(PATH)).toContain('"test":"test/agent.test.ts > billing > refund"')
})

it('reports the tokens a replay saved, read from the cassette it loaded', async () => {
  const { entries, open } = setup()
  const first = await open()
  await first.tape.call('llm', { model: 'gpt-4o' }, () => 'answer')
  await first.finish()
  const second = await open({ config: { ...CONFIG, mode: 'replay' } })
  await second.tape.call('llm', { model: 'gpt-4o' }, () => 'unused')
  await second.finish()
  expect(entries[1]).toMatchObject({ status: 'clean', tokens: { input: 100, output: 10 } })
})

it('returns the divergence the test fails with, with the re-record command and no stack frames', async () => {
  const { open } = setup()
  const first = await open()
  await first.tape.call('llm', { model: 'gpt-4o' }, () => 'answer')
  await first.finish()
  const second = await open({ config: { ...CONFIG, mode: 'replay' } })
  const miss = await second.tape.call('llm', { model: 'gpt-5' }, () => 'unused').catch((e: Error) => e)
  const failure = await second.finish()
  expect(failure).toBe(miss)
  expect(failure?.message).toContain(
    "npx vitest run test/agent.test.ts -t '^billing refund$' -- --update-cassettes",
  )
  expect(failure?.stack).toBe(`ReplayMiss: ${failure?.message}`)
})

it('keeps the run of a diverged replay, its secrets redacted, where the view command of the report looks', async () => {
  const key = `sk-proj-${'Xk9pQ2vL7mR4tY8w'.repeat(3)}`
  const { store, entries, open } = setup()
  const first = await open()
  await first.tape.call('tool', { name: 'lookup', args: ['INV-1'] }, () => 'found')
  await first.tape.call('llm', { model: 'gpt-4o', prompt: 'refund it' }, () => 'done')
  await first.finish()
  const second = await open({ config: { ...CONFIG, mode: 'replay' } })
  await second.tape.call('tool', { name: 'lookup', args: ['INV-1'] }, () => 'unused')
  await second.tape.call('llm', { model: 'gpt-4o', prompt: `refund it, key ${key}` }, () => 0).catch(() => {})
  await second.finish()
  const run = entries[1]!.run!
  expect(run).toMatch(
    /agent-tape-[0-9a-f]{12}\/runs\/test\/__cassettes__\/agent\.test\.ts\/billing\/refund\.jsonl$/,
  )
  expect(second.tape.failure()?.message).toContain(
    `  view      npx --no-install agent-tape view ${PATH} --run ${run}\n`,
  )
  const kept = parseCassette((await store.read(run))!, run)
  expect(kept.decisions.map((d) => [d.kind, d.out])).toEqual([
    ['tool', 'found'],
    ['llm', undefined],
  ])
  expect(JSON.stringify(kept.decisions[1]!.in)).toContain('refund it, key [REDACTED:')
  expect(await store.read(run)).not.toContain(key)
})

it('keeps no run when the replay did not diverge', async () => {
  const { entries, open } = setup()
  const first = await open()
  await first.tape.call('llm', { model: 'gpt-4o' }, () => 'answer')
  await first.finish()
  const second = await open({ config: { ...CONFIG, mode: 'replay' } })
  await second.tape.call('llm', { model: 'gpt-4o' }, () => 'unused')
  await second.finish()
  expect(entries[1]).not.toHaveProperty('run')
})

it('adds the setup file rules after the config rules, and asks for the harness only when paths are given', async () => {
  const identify = { paths: [] as readonly string[] }
  const provider: HarnessProvider = {
    identify: async (paths) => {
      identify.paths = paths
      return { git: false, reason: 'not a repository' }
    },
  }
  const { store, open } = setup({
    config: { ...CONFIG, harness: ['src/agent'] },
    runtime: { redactors: [{ name: 'order', pattern: /ORD-\d+/g }] },
    harnessProvider: () => provider,
  })
  const { tape, finish } = await open()
  await tape.tool('lookup', { id: 'ORD-42' }, () => 'found')
  await finish()
  expect(identify.paths).toEqual(['src/agent'])
  expect(await store.read(PATH)).not.toContain('ORD-42')
})

it('reports a tape that cannot open as an error entry under the mode it would have run in, and throws its error', async () => {
  const { store, entries, open } = setup()
  await store.write(PATH, 'not a cassette\n')
  const error = await open().catch((e: unknown) => e)
  expect(error).toMatchObject({ code: 'ERR_TAPE_CORRUPT' })
  expect(entries).toEqual([
    {
      test: 'test/agent.test.ts > billing > refund',
      cassettePath: PATH,
      mode: 'auto',
      action: 'replay',
      status: 'error',
      error: 'ERR_TAPE_CORRUPT',
      inCassette: 0,
      replayed: 0,
      recorded: 0,
      missed: 0,
      unused: 0,
      written: false,
    },
  ])
})

it('names what reaches the tape after its test finished in the entry, and reports the entry again', async () => {
  const again: TapeSummaryEntry[] = []
  const { entries, open } = setup({ reportLate: (entry) => again.push(entry) })
  const { tape, finish } = await open()
  await tape.call('llm', { model: 'gpt-4o' }, () => 'answer')
  expect(await finish()).toBeUndefined()
  // A promise the test did not await, reaching the tape once it finished.
  const late = await tape.call('tool', { name: 'refund' }, () => 'ran').catch((e: Error) => e)
  expect(late).toMatchObject({ code: 'ERR_TAPE_USAGE' })
  expect((late as Error).message).toBe(
    '[agent-tape] A decision of kind "tool" reached tape "test/agent.test.ts > billing > refund" after it finished: the run had ended, and a request or tool call outlived its test (from a promise the test did not await), so nothing was sent and nothing recorded. Await every agent call inside the test body.',
  )
  expect(entries[0]!.lateUses).toEqual([
    'A decision of kind "tool" reached tape "test/agent.test.ts > billing > refund" after it finished',
  ])
  expect(again).toEqual([entries[0]])
})

it('fails the test with what reaches the tape while it is still finishing', async () => {
  const { store, open } = setup()
  const { tape, finish } = await open()
  await tape.call('llm', { model: 'gpt-4o' }, () => 'answer')
  // The store writes the cassette while the tape finishes; the leaked call comes in meanwhile.
  const write = store.write.bind(store)
  let leaked: Promise<unknown> | undefined
  store.write = async (path, text) => {
    await write(path, text)
    leaked = tape.call('llm', { model: 'gpt-4o', late: true }, () => 'late').catch((e: Error) => e)
  }
  const failure = await finish()
  expect(await leaked).toMatchObject({ code: 'ERR_TAPE_USAGE' })
  expect(failure).toMatchObject({ code: 'ERR_TAPE_USAGE' })
  expect(failure?.message).toContain('A decision of kind "llm" reached tape')
})

it("gives the tape the test's timeout, which a replay paced as recorded must not outlast", async () => {
  const { open } = setup()
  const { tape } = await open({ testTimeoutMs: 2000 })
  expect(tapeInternals(tape).replayWaitLeftMs()).toBeLessThanOrEqual(2000)
  expect(tapeInternals(tape).replayWaitLeftMs()).toBeGreaterThan(1000)
  // Without a runner's timeout, a paced replay may still wait minutes, not forever.
  const { tape: unbounded } = await setup().open()
  expect(tapeInternals(unbounded).replayWaitLeftMs()).toBeGreaterThan(60_000)
  expect(tapeInternals(unbounded).replayWaitLeftMs()).toBeLessThanOrEqual(5 * 60_000)
})

it('replays the cassette a tape in a describe had at its former path, and reports where it belongs now', async () => {
  const former = 'test/__cassettes__/agent.test.ts/refund.jsonl'
  const { store, entries, open } = setup()
  const first = await open({ names: ['refund'] })
  await first.tape.call('llm', { model: 'gpt-4o' }, () => 'answer')
  await first.finish()
  expect(Object.keys(store.files)).toEqual([former])
  const moved = await open({ uniqueName: true })
  expect(moved.tape.cassettePath).toBe(former)
  await moved.tape.call('llm', { model: 'gpt-4o' }, () => 'unused')
  expect(await moved.finish()).toBeUndefined()
  expect(entries[1]).toMatchObject({ status: 'clean', cassettePath: former, movesTo: PATH })
  // Two tapes of the file have the name: the former path is no one's.
  const shared = await open({ uniqueName: false })
  expect(shared.tape.cassettePath).toBe(PATH)
  expect(shared.tape.action).toBe('record')
})
