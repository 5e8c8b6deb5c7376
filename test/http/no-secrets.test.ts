import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFileStore } from '@agent-tape/core/node'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runResearchAgent } from '../support/anthropic-agent.js'
import { runWeatherAgent } from '../support/openai-agent.js'
import { researchScript } from '../support/scripts.js'
import { runTaped } from '../support/tape-run.js'

const boundary = installHttpBoundary()
const dir = mkdtempSync(join(tmpdir(), 'agent-tape-secrets-'))
const store = createFileStore(dir)
// Secret-shaped values, assembled at run time so none sits in the repository as a literal.
const SECRETS = {
  openai: `sk-proj-${'Op3nAiK3y'.repeat(5)}`,
  anthropic: `sk-ant-api03-${'Anthr0p1cK3y'.repeat(5)}`,
  google: `AIza${'G00gleK3yX'.repeat(4).slice(0, 35)}`,
  bearer: `tok_${'B3arerT0ken'.repeat(4)}`,
  cookie: `session=${'C00kieV4lue'.repeat(3)}`,
}
let provider: FakeProvider

beforeAll(async () => {
  provider = await startFakeProvider({
    reply: (req) => researchScript(req.body),
    seed: 'secrets',
  })
  boundary.addModelEndpoints(provider.url)
})
afterAll(() => provider.close())

it('no API key, bearer token, key in a query string or cookie reaches any cassette', async () => {
  const openai = new OpenAI({ apiKey: SECRETS.openai, baseURL: provider.openaiBaseURL })
  const anthropic = new Anthropic({ apiKey: SECRETS.anthropic, baseURL: provider.anthropicBaseURL })
  const runs = [
    await runTaped(store, 'openai.jsonl', 'auto', () => runWeatherAgent(openai, 'Weather?', true)),
    await runTaped(store, 'anthropic.jsonl', 'auto', () => runResearchAgent(anthropic, 'Tape?')),
    await runTaped(store, 'generic.jsonl', 'auto', async () => {
      const response = await fetch(`${provider.url}/v1/models?key=${SECRETS.google}&page=2`, {
        headers: {
          authorization: `Bearer ${SECRETS.bearer}`,
          cookie: SECRETS.cookie,
          'x-api-key': SECRETS.anthropic,
        },
      })
      return response.status
    }),
  ]
  for (const run of runs) expect(run.state).toMatchObject({ written: true })
  expect(readdirSync(dir).sort()).toEqual(['anthropic.jsonl', 'generic.jsonl', 'openai.jsonl'])
  for (const [name, secret] of Object.entries(SECRETS)) {
    expect({ name, files: grep(secret) }).toEqual({ name, files: [] })
  }
  expect(grep('authorization')).toEqual([])
  expect(grep('Bearer')).toEqual([])
})

/** The cassette files that contain `text` (grep exits 1 when none does). */
function grep(text: string): string[] {
  try {
    return execFileSync('grep', ['-rlF', '--', text, dir], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
  } catch (error) {
    if ((error as { status?: number }).status === 1) return []
    throw error
  }
}
