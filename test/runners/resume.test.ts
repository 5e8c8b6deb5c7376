import { parseCassette } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RUNNERS, type Runner, type RunnerProject, testFile } from './runners.js'

// Re-recording from the step that changed, alike in both runners: a six-step run whose step 4
// changes costs the last three steps at the provider in mode `resume`, against six for `update`.

const STEPS = ['Plan the trip', 'Book the train', 'Book the hotel', 'Pack', 'Leave', 'Arrive']
const CHANGED = STEPS.map((s, i) => (i === 3 ? 'Pack light' : s))
const CASSETTE = 'test/__cassettes__/trip.test.ts/trip.jsonl'
/** What the provider serves each request: gpt-4o-mini, at $0.15 per million in and $0.60 out. */
const USAGE = { inputTokens: 100, outputTokens: 10 }

function tripTest(runner: Runner, steps: readonly string[]): string {
  return testFile(runner, [
    "import { openai } from '../src/agent'",
    `const STEPS = ${JSON.stringify(steps)}`,
    "it.tape('trip', async () => {",
    '  const messages: { role: "user" | "assistant"; content: string }[] = []',
    '  for (const content of STEPS) {',
    "    messages.push({ role: 'user', content })",
    "    const response = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages })",
    "    messages.push({ role: 'assistant', content: response.choices[0]!.message.content ?? '' })",
    '  }',
    '  expect(messages).toHaveLength(12)',
    '})',
  ])
}

/** The runner with one of agent-tape's switches: after `--` for Vitest, Jest's CLI for Jest. */
function withSwitch(runner: Runner, project: RunnerProject, flag: string, env: Record<string, string>) {
  return runner.name === 'Vitest'
    ? project.runTests(`test/trip.test.ts -- ${flag}`, env)
    : project.run(`npx agent-tape-jest test/trip.test.ts ${flag}`, env)
}

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  let provider: FakeProvider
  let served = { requests: 0, tokens: 0 }
  let project: RunnerProject
  const env = () => ({ FAKE_PROVIDER_URL: provider.url })
  /** What the provider received and served while `run` ran. */
  async function measured<T>(
    run: () => Promise<T>,
  ): Promise<{ result: T; requests: number; tokens: number }> {
    served = { requests: 0, tokens: 0 }
    const result = await run()
    return { result, ...served }
  }

  beforeAll(async () => {
    provider = await startFakeProvider({
      seed: `${runner.name}-resume`,
      reply: ({ body }) => {
        served.requests++
        served.tokens += USAGE.inputTokens + USAGE.outputTokens
        const messages = body.messages as { content: string }[]
        return { text: `done: ${messages.at(-1)!.content}`, usage: USAGE }
      },
    })
    project = runner.project()
  })
  afterAll(async () => {
    await provider.close()
    project.dispose()
  })

  it.sequential('re-records from the step that changed: only the steps from there on reach the provider', async () => {
    project.write('test/trip.test.ts', tripTest(runner, STEPS))
    const first = await measured(() => project.runTests('test/trip.test.ts', env()))
    expect(first.result.code, first.result.output).toBe(0)
    expect(first.requests).toBe(6)
    const recorded = project.read(CASSETTE)

    project.write('test/trip.test.ts', tripTest(runner, CHANGED))
    const update = await measured(() => withSwitch(runner, project, '--update-cassettes', env()))
    expect(update.result.code, update.result.output).toBe(0)
    expect([update.requests, update.tokens]).toEqual([6, 660])

    project.write(CASSETTE, recorded)
    // The miss offers both re-records: the whole test, or from the miss on, keeping what replayed.
    const missed = await measured(() => project.runTests('test/trip.test.ts', env()))
    expect(missed.result.code).not.toBe(0)
    expect(missed.requests).toBe(0)
    const command = (flag: string) =>
      `${runner.rerecord.start} test/trip.test.ts -t '^trip$' ${runner.rerecord.end.replace('--update-cassettes', flag)}`
    expect(missed.result.output).toContain(
      `If the change is intended, re-record this test: ${command('--update-cassettes')}.`,
    )
    expect(missed.result.output).toContain(
      `  resume    ${command('--resume-cassettes')} (re-records from this decision on, keeping the 3 decisions replayed before it)`,
    )
    expect(project.read(CASSETTE)).toBe(recorded)
    // The command as printed.
    const resume = await measured(() => project.run(command('--resume-cassettes'), env()))
    expect(resume.result.code, resume.result.output).toBe(0)
    expect([resume.requests, resume.tokens]).toEqual([3, 330])
    // The received requests are those of steps 4 to 6.
    expect(provider.requests.slice(-3).map((r) => (r.body.messages as unknown[]).length)).toEqual([7, 9, 11])

    const text = project.read(CASSETTE)
    const cassette = parseCassette(text, CASSETTE)
    expect(cassette.header.rerecordedFrom).toEqual({ seq: 4, step: 4, kept: 3 })
    expect(cassette.decisions.map((d) => d.step)).toEqual([1, 2, 3, 4, 5, 6])
    // Steps 1 to 3 are the lines they were, byte for byte.
    expect(text.split('\n').slice(1, 4)).toEqual(recorded.split('\n').slice(1, 4))
    // What the replayed part did not spend: 3 × (100 in, 10 out) of gpt-4o-mini, and the row counts it.
    const summary = resume.result[runner.summaryStream]
    expect(summary).toMatch(/trip +resume +recorded +3\/6 +3 /)
    expect(summary).toContain('recorded 330 tokens ≈ $0.000063, spent by this run (300 in, 30 out)')
    expect(summary).toContain(
      'trip: 6 → 6 decisions, 660 → 660 tokens, $0.00013 → $0.00013; replayed 3 decisions (330 tokens ≈ $0.000063), not spent again',
    )

    const ci = await measured(() => project.runTests('test/trip.test.ts', { ...env(), CI: 'true' }))
    expect(ci.result.code, ci.result.output).toBe(0)
    expect(ci.requests).toBe(0)

    // A run that matches the cassette entirely leaves it as it is, byte for byte.
    const again = await measured(() => withSwitch(runner, project, '--resume-cassettes', env()))
    expect(again.result.code, again.result.output).toBe(0)
    expect(again.requests).toBe(0)
    expect(project.read(CASSETTE)).toBe(text)
  })

  it.sequential('refuses the switch in CI, as it refuses --update-cassettes', async () => {
    const run = await withSwitch(runner, project, '--resume-cassettes', { ...env(), CI: 'true' })
    expect(run.code).not.toBe(0)
    expect(run.output).toContain(
      'Refusing to re-record cassettes in CI: mode "resume" was requested (by --resume-cassettes)',
    )
  })
})
