import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { type Browser, launch } from 'puppeteer-core'

/** A Chromium or Chrome binary to use instead of Debian's (the path). */
export const CHROMIUM_ENV = 'AGENT_TAPE_CHROMIUM'
/** Set to 1 to skip the browser tests on a machine that cannot have Chromium. */
export const SKIP_ENV = 'AGENT_TAPE_SKIP_BROWSER_TESTS'

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

/** Whether the browser tests were explicitly turned off: the only way they are skipped. */
export function browserTestsSkipped(env = process.env): boolean {
  return env[SKIP_ENV] === '1'
}

/**
 * The Chromium the browser tests drive: the one `AGENT_TAPE_CHROMIUM` names, else Debian's.
 * When there is none and the tests run as root (CI, this project's machines), Debian's
 * `chromium` package is installed with apt; otherwise this throws with how to get one, so that
 * a machine without a browser fails the tests rather than passing them silently.
 */
export function findChromium(env = process.env): string {
  const named = env[CHROMIUM_ENV]
  if (named) {
    if (existsSync(named)) return named
    throw new Error(`${CHROMIUM_ENV}=${named}, but there is no such file.`)
  }
  const found = CANDIDATES.find((path) => existsSync(path))
  if (found) return found
  if (process.getuid?.() === 0 && process.platform === 'linux') {
    const apt = (...args: string[]) =>
      spawnSync('apt-get', args, { encoding: 'utf8', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } })
    const update = apt('update')
    const install = update.status === 0 ? apt('install', '-y', 'chromium') : update
    const installed = CANDIDATES.find((path) => existsSync(path))
    if (installed) return installed
    throw new Error(
      `The browser tests need Chromium, and installing Debian's chromium package failed:\n${install.stderr ?? install.error}`,
    )
  }
  throw new Error(
    [
      'The browser tests of the HTML view need Chromium, and none was found.',
      `Install it (Debian and Ubuntu: sudo apt-get install chromium), or name a Chromium or Chrome binary with ${CHROMIUM_ENV}=/path/to/chrome,`,
      `or skip these tests explicitly with ${SKIP_ENV}=1.`,
    ].join(' '),
  )
}

/** The headless Chromium every browser test drives (`findChromium`'s). */
export function launchChromium(): Promise<Browser> {
  return launch({
    executablePath: findChromium(),
    headless: true,
    // Root (CI, containers) needs --no-sandbox.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars'],
  })
}
