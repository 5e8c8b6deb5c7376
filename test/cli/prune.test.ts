import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { runWeatherAgent, weatherTurns } from './support/agents.js'
import { runCli } from './support/cli.js'
import { recordCassette } from './support/record.js'

const root = mkdtempSync(join(tmpdir(), 'agent-tape-cli-prune-'))

function write(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}

const AGENT_TEST = `import { expect, it } from '@agent-tape/vitest'
import { runAgent } from '../src/agent.js'

it.tape('paris', async ({ tape }) => {
  expect(await runAgent('Paris', tape.tools(tools))).toMatch(/rain/)
})

it.tape.skip("lyon", async () => {})
`

const TABLE_TEST = `import { it } from '@agent-tape/vitest'

it.tape.each(['paris', 'lyon'])('city %s', async (city) => {})
`

const CASSETTES = [
  'test/__cassettes__/agent.test.ts/paris.jsonl',
  'test/__cassettes__/agent.test.ts/lyon.jsonl',
  'test/__cassettes__/agent.test.ts/renamed-away.jsonl',
  'test/__cassettes__/deleted.test.ts/only.jsonl',
  'test/__cassettes__/table.test.ts/city paris.jsonl',
  'test/__cassettes__/table.test.ts/city lyon.jsonl',
]

beforeAll(async () => {
  const recorded = await recordCassette(root, CASSETTES[0]!, {
    reply: weatherTurns(['Rain.']),
    run: (c) => runWeatherAgent(c, 'Weather in Paris?'),
  })
  for (const path of CASSETTES.slice(1)) write(path, recorded)
  write('test/agent.test.ts', AGENT_TEST)
  write('test/table.test.ts', TABLE_TEST)
  write('node_modules/lib/__cassettes__/gone.test.ts/x.jsonl', recorded)
})

it('lists cassettes of deleted tests and of tapes no test declares, and keeps dynamic files, with --dry-run', async () => {
  expect(await runCli(['prune', '--dry-run'], root)).toEqual({
    code: 0,
    stderr: '',
    stdout: `obsolete    test/__cassettes__/agent.test.ts/renamed-away.jsonl  (test/agent.test.ts declares no tape "renamed-away")
obsolete    test/__cassettes__/deleted.test.ts/only.jsonl  (test/deleted.test.ts no longer exists)
cannot tell test/__cassettes__/table.test.ts/  (test/table.test.ts:3: a .each table names its tapes; kept 2 cassettes)

Would delete 2 obsolete cassettes (dry run: nothing was deleted).
`,
  })
  for (const path of CASSETTES) expect(existsSync(join(root, path))).toBe(true)
})

it('deletes them when asked, removes folders left empty, and never touches the files it cannot judge', async () => {
  const { code, stdout } = await runCli(['prune', 'test'], root)
  expect(code).toBe(0)
  expect(stdout).toContain('Deleted 2 obsolete cassettes.')
  expect(readdirSync(join(root, 'test/__cassettes__')).sort()).toEqual(['agent.test.ts', 'table.test.ts'])
  expect(readdirSync(join(root, 'test/__cassettes__/agent.test.ts')).sort()).toEqual([
    'lyon.jsonl',
    'paris.jsonl',
  ])
  expect(readdirSync(join(root, 'test/__cassettes__/table.test.ts')).sort()).toEqual([
    'city lyon.jsonl',
    'city paris.jsonl',
  ])
  expect(existsSync(join(root, 'node_modules/lib/__cassettes__/gone.test.ts/x.jsonl'))).toBe(true)
  expect(readFileSync(join(root, CASSETTES[0]!), 'utf8')).toContain('"agentTape":2')
  expect((await runCli(['prune'], root)).stdout).toBe(
    'cannot tell test/__cassettes__/table.test.ts/  (test/table.test.ts:3: a .each table names its tapes; kept 2 cassettes)\n\nNo obsolete cassettes.\n',
  )
})

it('rejects a path that is not a folder', async () => {
  expect(await runCli(['prune', 'test/agent.test.ts'], root)).toEqual({
    code: 2,
    stdout: '',
    stderr:
      '[agent-tape] Invalid arguments for agent-tape prune: test/agent.test.ts is not a folder. Pass the folders to search for __cassettes__.\n',
  })
})

it('judges cassettes in describe folders as the runners do: nested ones listed, a former path kept only until its describe path exists', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-cli-prune-describe-'))
  const at = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const recorded = readFileSync(join(root, CASSETTES[0]!), 'utf8')
  at(
    'test/shop.test.ts',
    `import { describe, expect, it } from '@agent-tape/vitest'

it.tape('top', async () => {})
describe('checkout', () => {
  it.tape('pays', async () => {
    expect(await pay()).toMatch(/paid \\(in full/)
  })
  it.tape('legacy', async () => {})
  describe('refunds', () => {
    it.tape('twice', async () => {})
  })
})
`,
  )
  const folder = 'test/__cassettes__/shop.test.ts'
  const kept = ['top', 'checkout/pays', 'checkout/refunds/twice', 'legacy']
  for (const name of [...kept, 'pays', 'checkout/gone', 'checkout/refunds/gone', 'old/x']) {
    at(`${folder}/${name}.jsonl`, recorded)
  }
  const result = await runCli(['prune', '--dry-run'], dir)
  expect(result).toEqual({
    code: 0,
    stderr: '',
    stdout: `obsolete    ${folder}/checkout/gone.jsonl  (test/shop.test.ts declares no tape "checkout > gone")
obsolete    ${folder}/checkout/refunds/gone.jsonl  (test/shop.test.ts declares no tape "checkout > refunds > gone")
obsolete    ${folder}/old/x.jsonl  (test/shop.test.ts declares no tape "old > x")
obsolete    ${folder}/pays.jsonl  (the tape "checkout > pays" reads ${folder}/checkout/pays.jsonl now)

Would delete 4 obsolete cassettes (dry run: nothing was deleted).
`,
  })
  // legacy.jsonl is read by the tape "checkout > legacy" until checkout/legacy.jsonl exists.
  expect((await runCli(['prune'], dir)).stdout).toContain('Deleted 4 obsolete cassettes.')
  const left = readdirSync(join(dir, folder), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => f.slice(0, -'.jsonl'.length))
    .sort()
  expect(left).toEqual([...kept].sort())
  // The folder of a describe block left empty is removed with its last cassette.
  expect(existsSync(join(dir, folder, 'old'))).toBe(false)
  at(`${folder}/checkout/legacy.jsonl`, recorded)
  expect((await runCli(['prune', '--dry-run'], dir)).stdout).toContain(
    `obsolete    ${folder}/legacy.jsonl  (the tape "checkout > legacy" reads ${folder}/checkout/legacy.jsonl now)`,
  )
})
