import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { REPO_ROOT } from './support/fixture-project.js'

/** The shell commands of the README's "Set up" section, one per fenced `sh` block. */
function setUpCommands(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('## Set up\n')
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1))
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim())
}

it("runs in CI exactly the test command the README's set-up gives, and the README gives two commands", () => {
  const commands = setUpCommands()
  expect(commands).toEqual([
    'npx -y pnpm@12.4.2 install && npx -y pnpm@12.4.2 demo',
    'npx -y pnpm@12.4.2 install && npx -y pnpm@12.4.2 test',
  ])
  const ci = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8').split('\n')
  expect(ci).toContain(commands[1])
  // The README's first fenced block is the first set-up command, before any sample of what
  // agent-tape prints (whose re-record line is a command too, and not the test command).
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  expect(readme.match(/```\w*\n(.*)\n/)?.[1]).toBe(commands[0])
})
