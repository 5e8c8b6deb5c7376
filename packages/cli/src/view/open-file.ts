import { spawn } from 'node:child_process'

/** The program that opens a file with its default application, on each platform. */
export function openerFor(platform: NodeJS.Platform, file: string): [string, string[]] {
  if (platform === 'darwin') return ['open', [file]]
  // `start` is a builtin of cmd; its first quoted argument is the window title. The arguments are
  // passed verbatim (see openWithPlatform), so the path is quoted here.
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', `"${file}"`]]
  return ['xdg-open', [file]]
}

/**
 * Opens a file with the platform's opener (`open`, `xdg-open`, `start`) and returns once the
 * opener has started (it is not waited for): a missing opener is reported, not thrown.
 */
export function openWithPlatform(
  file: string,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const [command, args] = openerFor(platform, file)
  return new Promise((done) => {
    const child = spawn(command, args, {
      env,
      stdio: 'ignore',
      detached: true,
      windowsVerbatimArguments: platform === 'win32',
    })
    child.once('error', (error) =>
      done({
        ok: false,
        message: `Could not open the page with ${command} (${error.message}); open ${file} in a browser.`,
      }),
    )
    child.once('spawn', () => {
      child.unref()
      done({ ok: true })
    })
  })
}
