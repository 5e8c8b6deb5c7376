#!/usr/bin/env node
// Builds every package of the workspace in dependency order (`pnpm build`): ESM and CJS with
// plain tsc (build-package.mjs), the Vitest package as ESM only, the CLI's bin made executable.
// Each package also gets the repository's LICENSE, which npm packs beside its README.
import { spawn } from 'node:child_process'
import { chmodSync, copyFileSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const GROUPS = [['core'], ['http', 'fake-provider'], ['runner-kit', 'capture'], ['vitest', 'jest', 'cli']]

function run(cwd, command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: 'inherit' })
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} failed in ${cwd} (exit ${code})`)),
    )
  })
}

async function build(name) {
  const dir = join(root, 'packages', name)
  if (name === 'vitest') {
    // Vitest loads ESM only; its package ships no CommonJS build.
    rmSync(join(dir, 'dist'), { recursive: true, force: true })
    await run(dir, join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'])
  } else {
    await run(dir, process.execPath, [join(root, 'scripts', 'build-package.mjs')])
  }
  if (name === 'cli') {
    // tsc keeps the `#!/usr/bin/env node` line of the bin, but not its file mode.
    for (const file of ['dist/esm/bin.js', 'dist/cjs/bin.js']) {
      if (!readFileSync(join(dir, file), 'utf8').startsWith('#!/usr/bin/env node\n')) {
        throw new Error(`${file} of the CLI does not start with #!/usr/bin/env node`)
      }
      chmodSync(join(dir, file), 0o755)
    }
  }
  copyFileSync(join(root, 'LICENSE'), join(dir, 'LICENSE'))
}

for (const group of GROUPS) await Promise.all(group.map(build))
