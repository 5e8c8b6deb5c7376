import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Cassette, createMemoryStore } from '@agent-tape/core/internal'
import { expect, it } from 'vitest'
import { cacheDirFor } from './cache-dir.js'
import { buildViewCommand, keepDivergedRun, runPathFor } from './diverged-run.js'

const CASSETTE = 'test/__cassettes__/agent.test.ts/issue-412.jsonl'

it('keeps runs under node_modules/.cache when the project has node_modules, else in the temp folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-runs-'))
  expect(cacheDirFor(root, {})).toMatch(/agent-tape-[0-9a-f]{12}$/)
  expect(runPathFor(root, CASSETTE, {})).toBe(join(cacheDirFor(root, {}), 'runs', CASSETTE))
  mkdirSync(join(root, 'node_modules'))
  expect(runPathFor(root, CASSETTE, {})).toBe(`node_modules/.cache/agent-tape/runs/${CASSETTE}`)
  expect(runPathFor(root, CASSETTE, { AGENT_TAPE_CACHE_DIR: '.cache/tapes' })).toBe(
    `.cache/tapes/runs/${CASSETTE}`,
  )
})

it('names the view command with the project package runner, quoting paths a shell would split', () => {
  expect(buildViewCommand({ exec: 'pnpm', cassettePath: CASSETTE, runPath: `.cache/runs/${CASSETTE}` })).toBe(
    `pnpm agent-tape view ${CASSETTE} --run .cache/runs/${CASSETTE}`,
  )
  expect(buildViewCommand({ exec: 'npx', cassettePath: 'test/a b.jsonl', runPath: "runs/it's.jsonl" })).toBe(
    `npx --no-install agent-tape view 'test/a b.jsonl' --run 'runs/it'\\''s.jsonl'`,
  )
})

it('keeps a run with its secrets redacted, in strings and in encoded bodies alike', async () => {
  const key = `sk-proj-${'Xk9pQ2vL7mR4tY8w'.repeat(3)}`
  const run = (out: unknown): Cassette => ({
    header: { agentTape: 1, keyScheme: 1, test: 't', recordedAt: '2026-01-01T00:00:00.000Z' },
    decisions: [{ seq: 1, key: 'tool:0123456789abcdef', kind: 'tool', step: 0, ms: 1, in: { key }, out }],
  })
  const store = createMemoryStore()
  const secrets = { env: {}, allow: [] }
  expect(await keepDivergedRun(run('ok'), 'plain.jsonl', store, secrets)).toEqual({ kept: true })
  const kept = (await store.read('plain.jsonl'))!
  expect(kept).not.toContain(key)
  expect(kept).toContain('[REDACTED:')
  const encoded = run({
    status: 200,
    headers: {},
    body: { base64: Buffer.from(`key=${key}`).toString('base64') },
  })
  expect(await keepDivergedRun(encoded, 'encoded.jsonl', store, secrets)).toEqual({ kept: true })
  const body = (await store.read('encoded.jsonl'))!
  expect(body).not.toContain(key.slice(8, 24))
  expect(body).not.toContain(Buffer.from(`key=${key}`).toString('base64').slice(0, 24))
  expect(body).toContain('"base64":"[REDACTED:openai-key]"')
})
