import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { packageFolder } from '../package-folder.js'
import { type ProcessSlot, SESSION_ENV, SLOT_ENV } from './session.js'

/**
 * The `file:` URL of the preload entry (`@agent-tape/http/preload`, `preload.mjs` at the
 * package's root) that `NODE_OPTIONS=--import=<url>` loads into every Node process. Found from
 * this module's own file, whichever build of the package (ES module or CommonJS) runs it.
 */
export function preloadUrl(): string {
  const file = join(packageFolder(), 'preload.mjs')
  if (!existsSync(file)) throw new Error(`the preload entry of @agent-tape/http is missing at ${file}`)
  return pathToFileURL(file).href
}

/**
 * `NODE_OPTIONS` with the preload added in front, unless it is there already; the user's own
 * options are kept. A URL has no spaces, so it needs no quotes.
 */
export function withPreload(nodeOptions: string | undefined, url = preloadUrl()): string {
  const option = `--import=${url}`
  const current = nodeOptions?.trim() ?? ''
  if (current.split(/\s+/).includes(option)) return current
  return current === '' ? option : `${option} ${current}`
}

/**
 * The variables that give a process of a session the boundary: the session folder, its place
 * in the process tree, and the preload in `NODE_OPTIONS` (kept with the options it had).
 *
 * @example
 * spawn('node', ['agent.js'], { env: { ...process.env, ...boundaryVariables(dir, { path: '', lane: '' }, process.env.NODE_OPTIONS) } })
 */
export function boundaryVariables(
  sessionDir: string,
  slot: ProcessSlot,
  nodeOptions: string | undefined,
): Record<string, string> {
  return {
    [SESSION_ENV]: sessionDir,
    [SLOT_ENV]: JSON.stringify(slot),
    NODE_OPTIONS: withPreload(nodeOptions),
  }
}
