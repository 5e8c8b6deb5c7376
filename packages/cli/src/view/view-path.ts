import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { cacheDirFor } from '@agent-tape/runner-kit'

/**
 * Where `agent-tape view` writes a page unless told: beside the project's other agent-tape
 * files that are no one's to commit, named after the cassette (`…/views/test/__cassettes__/
 * agent.test.ts/issue-412.html`), with `.run` or `.diff` before the extension for the other views.
 */
export function defaultViewPath(
  cwd: string,
  env: Record<string, string | undefined>,
  cassette: string,
  variant?: 'run' | 'diff',
): string {
  const file = resolve(cwd, cassette)
  const rel = relative(cwd, file)
  const name = rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel) ? basename(file) : rel
  const stem = name.replace(/\.jsonl$/, '')
  return join(cacheDirFor(cwd, env), 'views', `${stem}${variant ? `.${variant}` : ''}.html`)
}
