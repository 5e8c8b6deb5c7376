#!/usr/bin/env node
// Re-records this example's cassettes against a scripted model on loopback, so the example can
// be recorded on a machine without a provider key. To record against OpenAI instead:
//   OPENAI_API_KEY=sk-… AGENT_TAPE_MODE=update npx vitest run
import { spawn } from 'node:child_process'
import { startFakeProvider } from '@agent-tape/fake-provider'
import { supportTurn } from './scripted-model.mjs'

const provider = await startFakeProvider({
  reply: (request) => supportTurn(request.body),
  seed: 'support-agent',
})
// The scripted model lives in this process, so vitest must run beside it, not block it.
const child = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, OPENAI_BASE_URL: provider.openaiBaseURL, AGENT_TAPE_MODE: 'update' },
})
const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)))
await provider.close()
console.log(`\nscripted model answered ${provider.requests.length} requests`)
process.exit(code)
