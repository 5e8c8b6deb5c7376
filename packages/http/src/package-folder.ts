import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let found: string | undefined

/**
 * The folder of the installed `@agent-tape/http` package, for the files other processes and
 * threads load by path (`preload.mjs`, the CommonJS `worker-preload`). Found from the file this
 * code runs in, whichever build and bundle chunk that is (no `import.meta` in CommonJS): the
 * nearest folder above it whose `package.json` is the package's own (the build folders have
 * one that only sets their module type).
 */
export function packageFolder(): string {
  if (found) return found
  const start = ownFile()
  for (let folder = dirname(start); folder !== dirname(folder); folder = dirname(folder)) {
    const manifest = join(folder, 'package.json')
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name) {
      found = folder
      return folder
    }
  }
  throw new Error(`the package folder of @agent-tape/http cannot be found above ${start}`)
}

/** The file of this code, read from the engine's own record of the call. */
function ownFile(): string {
  const original = Error.prepareStackTrace
  try {
    Error.prepareStackTrace = (_error, frames) => frames
    const frames = new Error().stack as unknown as NodeJS.CallSite[]
    const name = frames[0]?.getFileName()
    if (!name) throw new Error('the location of @agent-tape/http cannot be read')
    return name.startsWith('file:') ? fileURLToPath(name) : name
  } finally {
    Error.prepareStackTrace = original
  }
}
