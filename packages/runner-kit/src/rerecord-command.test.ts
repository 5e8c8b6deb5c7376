import { expect, it } from 'vitest'
import { buildRerecordCommand, detectExec } from './rerecord-command.js'

it('builds a command that selects exactly one test by file and anchored full name', () => {
  expect(
    buildRerecordCommand({ runner: 'vitest', testFile: 'test/agent.test.ts', names: ['issue-412'] }),
  ).toBe("npx vitest run test/agent.test.ts -t '^issue-412$' -- --update-cassettes")
  expect(
    buildRerecordCommand({
      runner: 'vitest',
      testFile: 'test\\my agent.test.ts',
      names: ['agent (v2)', "it's [x]"],
      exec: 'pnpm',
    }),
  ).toBe(
    "pnpm vitest run 'test/my agent.test.ts' -t '^agent \\(v2\\) it'\\''s \\[x\\]$' -- --update-cassettes",
  )
})

it("re-records a Jest test through agent-tape's Jest CLI, the switch last and not after --", () => {
  expect(
    buildRerecordCommand({ runner: 'jest', testFile: 'test/triage.test.ts', names: ['inbox', 'triage'] }),
  ).toBe("npx agent-tape-jest test/triage.test.ts -t '^inbox triage$' --update-cassettes")
  expect(
    buildRerecordCommand({ runner: 'jest', testFile: 'test/a.test.ts', names: ['a'], exec: 'pnpm' }),
  ).toBe("pnpm agent-tape-jest test/a.test.ts -t '^a$' --update-cassettes")
})

it('uses the package manager that runs the scripts', () => {
  expect(detectExec('pnpm/12.4.2 npm/? node/v20.20.2 linux x64')).toBe('pnpm')
  expect(detectExec('yarn/4.0.0 npm/? node/v20')).toBe('yarn')
  expect(detectExec('npm/11.0.0 node/v20')).toBe('npx')
  expect(detectExec(undefined)).toBe('npx')
})
