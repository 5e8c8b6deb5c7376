import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

// `pnpm demo` is one of the README's two commands: it must keep telling its story.
it('the demo records a failing run, replays it offline, shows the miss, re-records and replays in CI', async () => {
  const script = fileURLToPath(new URL('../scripts/demo.mjs', import.meta.url))
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('npm_') && key !== 'CI' && !key.startsWith('VITEST'),
    ),
  )
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [script], { env: { ...env, NO_COLOR: '1' } })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('exit', (code) => resolve({ code, output }))
  })
  expect(code, output).toBe(0)
  expect(output).toContain('   recorded 7 decisions in test/__cassettes__/agent.test.ts/issue-412.jsonl')
  expect(output).toContain('   connections to the model server during the replay: 0')
  expect(output).toContain(
    "   ReplayMiss: [agent-tape] Replay miss at step 1, model request (gpt-4o): the run asked for a decision that was never recorded. If the change is intended, re-record this test: npx vitest run test/agent.test.ts -t '^issue-412$' -- --update-cassettes.",
  )
  expect(output).toContain(
    '     view      npx --no-install agent-tape view test/__cassettes__/agent.test.ts/issue-412.jsonl --run node_modules/.cache/agent-tape/runs/test/__cassettes__/agent.test.ts/issue-412.jsonl',
  )
  const page = /^ {3}(file:\S+issue-412\.html)$/m.exec(output)?.[1]
  expect(page, output).toBeDefined()
  expect(readFileSync(fileURLToPath(page!), 'utf8')).toContain('"role":"run"')
  // Step 5 re-records with the very command the miss printed a moment earlier.
  const printed = /re-record this test: (.+?)\.$/m.exec(output)?.[1]
  expect(printed).toBe("npx vitest run test/agent.test.ts -t '^issue-412$' -- --update-cassettes")
  expect(output).toContain(`5. Re-record this one test\n${printed}\n`)
  expect(output).toContain('   the refund now recorded: [{"paymentId":"pay_2","amount":4200}]')
  expect(output).toContain(
    '     test/agent.test.ts > issue-412  replay  clean        7/7         -       0       0',
  )
  // The re-record against the cassette it replaced, and what the CI replay did not spend.
  expect(output).toMatch(
    /^ {7}issue-412: 7 → \d+ decisions, [\d,]+ → [\d,]+ tokens( \([+-]\d+%\))?, \$[\d.]+ → \$[\d.]+$/m,
  )
  expect(output).toMatch(
    /^ {5}replayed [\d,]+ tokens of recordings ≈ \$[\d.]+ that this run did not spend \([\d,]+ in, [\d,]+ out\)$/m,
  )
  expect(output).toMatch(/^ {7}gpt-4o\S* +\d+ decisions, [\d,]+ tokens \([\d,]+ in, [\d,]+ out\), \$[\d.]+$/m)
  expect(output).toContain('The loop worked')
}, 120_000)
