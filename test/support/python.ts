import { spawnSync } from 'node:child_process'

/** Where Debian's packages install their modules: its own Python, whatever else is first on the PATH. */
const CANDIDATES = ['/usr/bin/python3', 'python3']

/** The Debian packages of the modules the tests' Python agents import. */
const PACKAGES: Record<string, string> = { httpx: 'python3-httpx', requests: 'python3-requests' }

/**
 * A Python 3 that imports `modules`: the first candidate that does. When none does and the tests
 * run as root on Linux (CI, this project's machines), Debian's packages are installed with apt;
 * otherwise this throws with how to get them, so that a machine without them fails the tests
 * rather than passing them silently.
 */
export function findPython(modules: readonly string[]): string {
  const found = () => CANDIDATES.find((python) => imports(python, modules))
  const python = found()
  if (python) return python
  if (process.getuid?.() === 0 && process.platform === 'linux') {
    const apt = (...args: string[]) =>
      spawnSync('apt-get', args, {
        encoding: 'utf8',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      })
    const update = apt('update', '-qq')
    const install =
      update.status === 0
        ? apt('install', '-y', '-qq', 'python3', ...modules.map((m) => PACKAGES[m] ?? m))
        : update
    const installed = found()
    if (installed) return installed
    throw new Error(
      `The Python agent tests need ${modules.join(', ')}, and installing them with apt failed:\n${install.stderr}`,
    )
  }
  throw new Error(
    `The Python agent tests need python3 with ${modules.join(', ')}. Install them (Debian and Ubuntu: sudo apt-get install python3 ${modules.map((m) => PACKAGES[m] ?? m).join(' ')}).`,
  )
}

function imports(python: string, modules: readonly string[]): boolean {
  const check = spawnSync(python, ['-c', modules.map((m) => `import ${m}`).join('; ') || 'pass'], {
    encoding: 'utf8',
  })
  return check.status === 0
}
