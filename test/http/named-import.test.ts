import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

// Run in a plain Node process: Vitest's module runner has its own view of builtin modules.
it('reaches node:http functions imported by name before the boundary was installed', () => {
  const script = fileURLToPath(new URL('./fixtures/named-import.mjs', import.meta.url))
  const states = JSON.parse(execFileSync(process.execPath, [script], { encoding: 'utf8' }))
  expect(states).toEqual([
    { action: 'record', status: 404, captured: 1, replayed: 0, connections: 1 },
    { action: 'replay', status: 404, captured: 0, replayed: 1, connections: 1 },
  ])
})
