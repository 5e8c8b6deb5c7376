import { describe, expect, it } from 'vitest'
import { startCityProvider } from '../support/fixture-project.js'
import { configure, RUNNERS, testFile } from './runners.js'

// A cassette whose answer came ten hours after its request (edited by hand, or hostile),
// replayed with `timing: 'recorded'` by each runner: the test fails at once with the decision
// named, within its timeout, instead of timing out with nothing said.
const CASSETTE = 'test/__cassettes__/paced.test.ts/slow-answer.jsonl'

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  it("fails a paced replay that would outlast the test's own timeout, naming the decision", async () => {
    const provider = await startCityProvider(`${runner.name}-paced`)
    const project = runner.project()
    const env = { FAKE_PROVIDER_URL: provider.url }
    try {
      project.write(
        'test/paced.test.ts',
        testFile(runner, [
          "import { ask } from '../src/agent'",
          '',
          "it.tape('slow-answer', async () => {",
          "  expect(await ask('Hi')).toBe('echo: Hi')",
          '}, 4000)',
        ]),
      )
      const record = await project.runTests('test/paced.test.ts', env)
      expect(record.code, record.output).toBe(0)
      const [header, decision] = project.read(CASSETTE).trimEnd().split('\n')
      const slow = JSON.parse(decision!)
      slow.out.headersAt = 36_000_000
      project.write(CASSETTE, `${header}\n${JSON.stringify(slow)}\n`)
      configure(runner, project, "timing: 'recorded'")
      const replay = await project.runTests('test/paced.test.ts', { ...env, CI: 'true' })
      expect(replay.code).toBe(1)
      expect(replay.output).toContain(
        `Cannot replay decision #1 (model request (gpt-4o-mini)) of ${CASSETTE} as recorded: with timing: 'recorded' it would wait 36,000,000 ms (10 h) (the recording took 36,000,000 ms (10 h) to answer), and the test has`,
      )
      // Counted from the test's own timeout (4 s), not the runner's default (5 s).
      expect(replay.output).toMatch(
        /the test has (?:[1-3],\d{3}|\d{1,3}) ms(?: \([\d.]+ s\))? left of its time limit/,
      )
      expect(replay.output).not.toMatch(/timed out|Exceeded timeout/i)
    } finally {
      project.dispose()
      await provider.close()
    }
  })
})
