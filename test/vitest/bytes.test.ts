import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it, vi } from 'vitest'
import { VitestProject } from './support/vitest-project.js'

// A tool that reads a file without an encoding, under the real Vitest: recorded, then replayed
// with the file gone, its result is still a Buffer of the file's bytes.
vi.setConfig({ testTimeout: 120_000 })
const project = new VitestProject('readme')
afterAll(() => project.dispose())

const TEST = [
  "import { readFile } from 'node:fs/promises'",
  "import { expect, it } from '@agent-tape/vitest'",
  '',
  "it.tape('reads-logo', async ({ tape }) => {",
  '  const tools = tape.tools({ read_file: (path: string) => readFile(new URL(path, import.meta.url)) })',
  "  const bytes = await tools.read_file('logo.bin')",
  '  expect(Buffer.isBuffer(bytes)).toBe(true)',
  "  expect(bytes.toString('hex')).toBe(process.env.LOGO_HEX)",
  '})',
  '',
].join('\n')

it('replays a file read as bytes as a Buffer equal to the file, with the file gone', async () => {
  const logo = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(1024)])
  const env = { LOGO_HEX: logo.toString('hex') }
  project.write('package.json', JSON.stringify({ name: 'bytes', private: true, type: 'module' }))
  project.write(
    'vitest.config.ts',
    "import { agentTape } from '@agent-tape/vitest/plugin'\nimport { defineConfig } from 'vitest/config'\n\nexport default defineConfig({ plugins: [agentTape()] })\n",
  )
  project.write('test/files.test.ts', TEST)
  mkdirSync(join(project.dir, 'test'), { recursive: true })
  writeFileSync(join(project.dir, 'test/logo.bin'), logo)

  const recorded = await project.runTests('', { ...env, AGENT_TAPE_MODE: 'update' })
  expect(recorded.code, recorded.output).toBe(0)
  const [cassette] = project.cassettes()
  const line = JSON.parse(project.read(cassette!).split('\n')[1]!)
  expect(line.out).toEqual({ $bytes: logo.toString('base64'), type: 'Buffer' })

  project.remove('test/logo.bin')
  const replayed = await project.runTests('', { ...env, AGENT_TAPE_MODE: 'replay' })
  expect(replayed.code, replayed.output).toBe(0)
  expect(replayed.output).toContain('1 replayed cleanly')
})
