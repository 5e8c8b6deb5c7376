import { describe, expect, it } from 'vitest'
import { useRecordedFixture } from './recorded-fixture.js'
import { RUNNERS, rerecordCommand, testFile } from './runners.js'
import { count } from './scenarios.js'

// Cassettes are named by the describe path, as snapshots are keyed: one tape name in two
// describes is two cassettes. A cassette recorded before, at the tape name alone, is still read
// until its tape is re-recorded. Both runners, the obsolete-cassette list and prune, and the
// re-record command agree on the names.

const FOLDER = 'test/__cassettes__/happy.test.ts'

/** Three tapes named "happy": at the top, and in two describe blocks (one nested). */
const HAPPY = [
  "import { ask } from '../src/agent'",
  '',
  "it.tape('happy', async () => { expect(await ask('Top?')).toBe('echo: Top?') })",
  "describe('checkout', () => {",
  "  it.tape('happy', async () => { expect(await ask('Checkout?')).toBe('echo: Checkout?') })",
  '})',
  "describe('refund', () => {",
  "  describe('partial / v2', () => {",
  "    it.tape('happy', async () => { expect(await ask('Refund?')).toBe('echo: Refund?') })",
  '  })',
  '})',
]

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  const fixture = useRecordedFixture(runner)
  const { env, copy } = fixture

  it.sequential('gives one tape name in different describes a cassette each, by describe path', async () => {
    const project = copy()
    project.write('test/happy.test.ts', testFile(runner, HAPPY))
    const record = await project.runTests('test/happy.test.ts', env())
    expect(record.code, record.output).toBe(0)
    expect(project.cassettes().filter((c) => c.startsWith(FOLDER))).toEqual([
      `${FOLDER}/checkout/happy.jsonl`,
      `${FOLDER}/happy.jsonl`,
      `${FOLDER}/refund/partial - v2/happy.jsonl`,
    ])
    expect(project.read(`${FOLDER}/checkout/happy.jsonl`)).toContain('Checkout?')
    expect(project.read(`${FOLDER}/refund/partial - v2/happy.jsonl`)).toContain('Refund?')
    const header = JSON.parse(project.read(`${FOLDER}/refund/partial - v2/happy.jsonl`).split('\n')[0]!)
    expect(header.test).toBe('test/happy.test.ts > refund > partial / v2 > happy')
    const replay = await project.runTests('test/happy.test.ts', env())
    expect(replay.code, replay.output).toBe(0)
    expect(replay.output).toContain('3 tapes: 3 replayed cleanly, 0 recorded, 0 diverged')
    expect(replay.output).not.toContain('bsolete')

    // The printed command re-records the one test it names, into its own cassette.
    project.write(
      'test/happy.test.ts',
      testFile(runner, HAPPY).replace(
        "'Checkout?')).toBe('echo: Checkout?')",
        "'Checkout now?')).toBe('echo: Checkout now?')",
      ),
    )
    const miss = await project.runTests('test/happy.test.ts', env())
    expect(miss.code).toBe(1)
    const command = rerecordCommand(runner, 'test/happy.test.ts', 'checkout happy')
    expect(count(miss.output, `re-record this test: ${command}.`)).toBe(1)
    expect(miss.output).toContain(`  cassette  ${FOLDER}/checkout/happy.jsonl`)
    const before = project.snapshot('test')
    const update = await project.run(command, env())
    expect(update.code, update.output).toBe(0)
    const after = project.snapshot('test')
    expect(Object.keys(after).filter((path) => after[path] !== before[path])).toEqual([
      `${FOLDER}/checkout/happy.jsonl`,
    ])
  })

  it.sequential('reads a cassette recorded at its tape name alone, says where it belongs, and lists it obsolete once re-recorded', async () => {
    const project = copy()
    // Recorded before cassettes were named by describe path: at the tape name alone.
    const former = 'test/__cassettes__/agent.test.ts/refund.jsonl'
    const moved = 'test/__cassettes__/agent.test.ts/billing/refund.jsonl'
    project.write(former, project.read(moved))
    project.remove(moved)
    const before = project.snapshot()
    for (const ci of [{}, { CI: 'true' }] as Record<string, string>[]) {
      const run = await project.runTests('test/agent.test.ts', { ...env(), ...ci })
      expect(run.code, run.output).toBe(0)
      expect(run.output).toContain('2 tapes: 2 replayed cleanly, 0 recorded, 0 diverged')
      expect(run.output).toContain(
        [
          '  Cassettes at their former paths (1): read from there; cassettes are now named by their describe blocks too, so move them (or re-record):',
          `    git mv '${former}' '${moved}'`,
        ].join('\n'),
      )
      expect(run.output).not.toContain('bsolete')
      expect(project.snapshot()).toEqual(before)
    }
    // Re-recording writes the new path; the former one is obsolete from then on, and pruned.
    const update = await project.run(rerecordCommand(runner, 'test/agent.test.ts', 'billing refund'), env())
    expect(update.code, update.output).toBe(0)
    expect(project.read(moved)).toContain('Weather in Oslo?')
    const replay = await project.runTests('test/agent.test.ts', env())
    expect(replay.code, replay.output).toBe(0)
    expect(replay.output).toContain(
      `  Obsolete cassettes (1): no test uses them any more. Delete them, or prune them with ${runner.pruneHint}:\n    ${former}`,
    )
    expect(replay.output).not.toContain('former paths')
    const pruned = await runner.prune(project, env())
    expect(pruned.code, pruned.output).toBe(0)
    expect(project.cassettes()).not.toContain(former)
    expect(project.cassettes()).toContain(moved)
  })

  it.sequential('lists the cassettes of a removed describe block as obsolete, and prunes them', async () => {
    const project = copy()
    project.write('test/__cassettes__/agent.test.ts/shipping/refund.jsonl', '')
    project.write('test/__cassettes__/agent.test.ts/billing/gone.jsonl', '')
    const run = await project.runTests('test/agent.test.ts', env())
    expect(run.code, run.output).toBe(0)
    expect(run.output).toContain(
      [
        `  Obsolete cassettes (2): no test uses them any more. Delete them, or prune them with ${runner.pruneHint}:`,
        '    test/__cassettes__/agent.test.ts/billing/gone.jsonl',
        '    test/__cassettes__/agent.test.ts/shipping/refund.jsonl',
      ].join('\n'),
    )
    const pruned = await runner.prune(project, env())
    expect(pruned.code, pruned.output).toBe(0)
    expect(pruned.output).toContain('  Pruned 2 obsolete cassettes:')
    expect(project.cassettes()).toEqual(fixture.recorded.cassettes())
  })
})
