import { execFile } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'
import { REPO_ROOT } from './support/fixture-project.js'

// `pnpm demo` and `pnpm bench` build first: a build with nothing changed must not rebuild (it
// took 20 s of the demo's 47). Tried on a copy holding the core package only.
const copy = mkdtempSync(join(tmpdir(), 'agent-tape-build-cache-'))
afterAll(() => rmSync(copy, { recursive: true, force: true }))

async function build(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(copy, 'scripts/build-packages.mjs'), ...args],
    {
      cwd: copy,
    },
  )
  return stdout
}

it('builds a package again only when an input of its build changed, or when forced', async () => {
  for (const file of [
    'scripts/build-packages.mjs',
    'scripts/build-package.mjs',
    'scripts/build-view-page.mjs',
    'tsconfig.base.json',
    'pnpm-lock.yaml',
    'LICENSE',
  ]) {
    cpSync(join(REPO_ROOT, file), join(copy, file))
  }
  const core = join(copy, 'packages/core')
  mkdirSync(core, { recursive: true })
  for (const entry of ['src', 'package.json', 'tsconfig.json', 'README.md']) {
    cpSync(join(REPO_ROOT, 'packages/core', entry), join(core, entry), { recursive: true })
  }
  symlinkSync(join(REPO_ROOT, 'packages/core/node_modules'), join(core, 'node_modules'), 'junction')
  mkdirSync(join(copy, 'node_modules'))
  // The build scripts' own dependency, as the workspace root has it.
  symlinkSync(
    realpathSync(join(REPO_ROOT, 'node_modules/rolldown')),
    join(copy, 'node_modules/rolldown'),
    'junction',
  )
  const index = join(core, 'dist/esm/index.js')

  expect(await build()).not.toContain('Up to date')
  const built = statSync(index).mtimeMs
  expect(await build()).toContain('Up to date, not rebuilt: core')
  expect(statSync(index).mtimeMs).toBe(built)

  // A changed source is built again.
  const source = join(core, 'src/index.ts')
  writeFileSync(source, `${readFileSync(source, 'utf8')}\n// edited\n`)
  expect(await build()).not.toContain('Up to date')
  expect(statSync(index).mtimeMs).toBeGreaterThan(built)
  expect(await build()).toContain('Up to date, not rebuilt: core')

  // A removed dist is built again, and --force builds whatever the stamps say.
  rmSync(join(core, 'dist'), { recursive: true })
  expect(await build()).not.toContain('Up to date')
  expect(await build('--force')).not.toContain('Up to date')
}, 120_000)
