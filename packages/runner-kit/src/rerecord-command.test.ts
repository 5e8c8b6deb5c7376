import { expect, it } from 'vitest'
import {
  binCommand,
  buildRerecordCommand,
  buildSetupRerecordCommand,
  buildUpdateAllCommand,
  CLI_BIN,
  detectExec,
} from './rerecord-command.js'
import { buildViewCommand } from './runs/diverged-run.js'

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
  ).toBe("npx --no-install agent-tape-jest test/triage.test.ts -t '^inbox triage$' --update-cassettes")
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

it('runs our bins only as installed: npx never fetches a package named after them', () => {
  expect(binCommand(CLI_BIN, 'view a.jsonl')).toBe('npx --no-install agent-tape view a.jsonl')
  expect(binCommand(CLI_BIN, 'view a.jsonl', 'pnpm')).toBe('pnpm agent-tape view a.jsonl')
  expect(binCommand(CLI_BIN, 'view a.jsonl', 'yarn')).toBe('yarn agent-tape view a.jsonl')
  // bunx, like npx, installs what is missing; `bun run` runs only the project's own bins.
  expect(binCommand(CLI_BIN, 'view a.jsonl', 'bunx')).toBe('bun run agent-tape view a.jsonl')
  for (const exec of ['npx', 'pnpm', 'yarn', 'bunx']) {
    expect(buildUpdateAllCommand('jest', exec)).not.toMatch(/\b(?:npx|bunx) agent-tape/)
    expect(buildViewCommand({ exec, cassettePath: 'a.jsonl', runPath: 'r.jsonl' })).not.toMatch(
      /\b(?:npx|bunx) agent-tape/,
    )
  }
})

it('re-records a setup tape with the tests of its describe block (the hook runs with them), or of its file', () => {
  expect(
    buildSetupRerecordCommand({
      runner: 'vitest',
      testFile: 'test/mcp.test.ts',
      describes: ['weather', 'stdio (v2)'],
    }),
  ).toBe("npx vitest run test/mcp.test.ts -t '^weather stdio \\(v2\\) ' -- --update-cassettes")
  expect(buildSetupRerecordCommand({ runner: 'vitest', testFile: 'test/mcp.test.ts', describes: [] })).toBe(
    'npx vitest run test/mcp.test.ts -- --update-cassettes',
  )
  expect(
    buildSetupRerecordCommand({
      runner: 'jest',
      testFile: 'test/mcp.test.ts',
      describes: ['weather'],
      exec: 'pnpm',
    }),
  ).toBe("pnpm agent-tape-jest test/mcp.test.ts -t '^weather ' --update-cassettes")
})
