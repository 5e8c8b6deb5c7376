import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const CHILD = fileURLToPath(new URL('./light-entries-child.mjs', import.meta.url))

interface ChildRun {
  outside: string
  recorded: string
  replayed: string
  state: string
  /** Modules of agent-tape (and the text diff) each step loaded, as URLs. */
  steps: Record<'setup' | 'outside' | 'open' | 'tape', string[]>
}

// What only a tape needs: the barrels, a test's tape lifecycle, the request handling, the readers
// that label reports, the text diff.
const TAPE_ONLY = [
  'core/dist/esm/index.js',
  'core/dist/esm/internal.js',
  'core/dist/esm/json-diff.js',
  '/diff/libesm/',
  'http/dist/esm/index.js',
  'http/dist/esm/handle-request.js',
  'http/dist/esm/read-exchange.js',
  'inspect/dist/esm/index.js',
  'runner-kit/dist/esm/index.js',
  'runner-kit/dist/esm/test-tape.js',
]

const run = JSON.parse(
  execFileSync(process.execPath, [CHILD], { encoding: 'utf8', timeout: 60_000 }),
) as ChildRun

it("a runner's setup (the light entries, the interception installed) loads none of what only a tape needs", () => {
  expect(run.steps.setup).toContainEqual(expect.stringContaining('http/dist/esm/install.js'))
  expect(run.steps.setup.filter((url) => TAPE_ONLY.some((part) => url.includes(part)))).toEqual([])
})

it('a request made outside any tape while none runs passes through, loading nothing', () => {
  expect(run.outside).toBe('from the server')
  expect(run.steps.outside).toEqual([])
})

it('the request handling and the report labels are loaded before a tape opens, and the tape records and replays', () => {
  const open = run.steps.open
  expect(open).toContainEqual(expect.stringContaining('http/dist/esm/handle-request.js'))
  expect(open).toContainEqual(expect.stringContaining('http/dist/esm/read-exchange.js'))
  expect(run.recorded).toBe('from the server')
  // Replayed after the server closed: the answer came from the tape.
  expect(run.replayed).toBe('from the server')
  expect(run.state).toBe('clean')
})
