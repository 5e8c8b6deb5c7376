#!/usr/bin/env node
// Re-records the cassettes of the example in the working directory against its scripted model
// (scripts/scripted-model.mjs there), served on loopback by @agent-tape/fake-provider, so the
// examples can be recorded on a machine without provider keys. It runs the example's test runner
// (Jest when the example depends on it, else Vitest); extra arguments go to the runner.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { startFakeProvider } from '@agent-tape/fake-provider'

const cwd = process.cwd()
const model = await import(pathToFileURL(join(cwd, 'scripts/scripted-model.mjs')).href)
const provider = await startFakeProvider({
  reply: (request) => model.reply(request.body, request),
  seed: model.SEED,
})
const manifest = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'))
const runner = manifest.devDependencies?.jest
  ? [join(cwd, 'node_modules/jest/bin/jest.js')]
  : [join(cwd, 'node_modules/vitest/vitest.mjs'), 'run']
// The scripted model lives in this process, so the runner must run beside it, not block it.
const child = spawn(process.execPath, [...runner, ...process.argv.slice(2)], {
  cwd,
  stdio: 'inherit',
  env: { ...process.env, ...model.environment(provider), AGENT_TAPE_MODE: 'update' },
})
const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)))
await provider.close()
console.log(`\nscripted model answered ${provider.requests.length} requests`)
process.exit(code)
