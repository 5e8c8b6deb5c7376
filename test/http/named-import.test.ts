import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

// Run in a plain Node process: Vitest's module runner has its own view of builtin modules.
it('reaches node:http and node:http2 functions imported by name before the boundary was installed', () => {
  const script = fileURLToPath(new URL('./fixtures/named-import.mjs', import.meta.url))
  const states = JSON.parse(execFileSync(process.execPath, [script], { encoding: 'utf8' }))
  expect(states).toEqual([
    { name: 'http', action: 'record', status: 404, recorded: 1, replayed: 0, connections: 1 },
    { name: 'http', action: 'replay', status: 404, recorded: 0, replayed: 1, connections: 1 },
    { name: 'http2', action: 'record', status: 404, recorded: 1, replayed: 0, connections: 2 },
    { name: 'http2', action: 'replay', status: 404, recorded: 0, replayed: 1, connections: 2 },
  ])
})
