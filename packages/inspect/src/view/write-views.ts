import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import {
  type Cassette,
  parseCassette,
  redactCassetteForReading,
  SecretScanner,
  secretEnvValues,
} from '@agent-tape/core/internal'
import { renderCompareView } from './render-page.js'

/** A test whose replay diverged: its cassette, and the run it kept (none when it kept none). */
export interface DivergedTape {
  test: string
  cassettePath: string
  run?: string
}

/** A divergence view the run summary wrote, or why it could not. */
export type WrittenView = { test: string; path: string } | { test: string; error: string }

/**
 * Writes the divergence view of every tape whose replay diverged and kept its run: the
 * recording and the run side by side, one page per test under `viewDir` (relative to `root`),
 * named after the cassette (`<viewDir>/test/__cassettes__/agent.test.ts/issue-412.html`).
 */
export async function writeDivergenceViews(
  root: string,
  viewDir: string,
  entries: readonly DivergedTape[],
  env: Record<string, string | undefined>,
): Promise<WrittenView[]> {
  const written: WrittenView[] = []
  for (const entry of entries) {
    if (!entry.run) continue
    const path = join(viewDir, entry.cassettePath.replace(/\.jsonl$/, '.html')).replace(/\\/g, '/')
    try {
      const recording = await readForView(root, entry.cassettePath, env)
      const run = await readForView(root, entry.run, env)
      const html = renderCompareView(
        { file: entry.cassettePath, cassette: recording },
        { file: entry.run, cassette: run },
        { env, run: true },
      )
      const file = resolve(root, path)
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, html)
      written.push({ test: entry.test, path })
    } catch (error) {
      written.push({ test: entry.test, error: (error as Error).message })
    }
  }
  return written
}

/** A cassette as the CLI reads one to show it: validated, its secrets redacted. */
async function readForView(
  root: string,
  path: string,
  env: Record<string, string | undefined>,
): Promise<Cassette> {
  const cassette = parseCassette(await readFile(resolve(root, path), 'utf8'), path)
  return redactCassetteForReading(cassette, new SecretScanner(secretEnvValues(env)))
}
