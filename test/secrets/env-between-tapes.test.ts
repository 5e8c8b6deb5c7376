import { createMemoryStore, isSecretLeakError, openTape } from '@agent-tape/core'
import { afterEach, expect, it } from 'vitest'

// Tapes read the secret-like variables of `process.env` (their default environment) when they
// open. A test may set one between two tapes: the second tape must know it.

const NAME = 'AGENT_TAPE_TEST_DB_PASSWORD'
const store = createMemoryStore()

afterEach(() => {
  delete process.env[NAME]
})

async function recordToolResult(id: string, result: string) {
  const tape = await openTape({
    id,
    cassettePath: `${id}.jsonl`,
    store,
    mode: 'update',
    allowRecordingInCI: true,
  })
  await tape.tool('read_config', {}, () => ({ motto: result }))
  return tape.finish().then(
    () => undefined,
    (error: unknown) => error,
  )
}

it('refuses to write a secret set in the environment after an earlier tape opened', async () => {
  const value = 'Qx7-unguessable-db-pass-41'
  expect(await recordToolResult('before', `motto ${value}`)).toBeUndefined()
  expect(store.files['before.jsonl']).toContain(value)

  process.env[NAME] = value
  const refused = await recordToolResult('after', `motto ${value}`)
  expect(isSecretLeakError(refused)).toBe(true)
  expect((refused as Error).message).toContain(NAME)
  expect(store.files['after.jsonl']).toBeUndefined()

  process.env[NAME] = 'Rw3-changed-db-pass-77'
  const changed = await recordToolResult('changed', 'motto Rw3-changed-db-pass-77')
  expect(isSecretLeakError(changed)).toBe(true)
  delete process.env[NAME]
  expect(await recordToolResult('removed', 'motto Rw3-changed-db-pass-77')).toBeUndefined()
})
