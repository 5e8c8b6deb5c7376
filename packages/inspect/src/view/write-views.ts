import { readFile, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { parseCassette } from '@agent-tape/core/internal'
import { makeDirectory } from '@agent-tape/core/node'
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
  // Parsed only: the renderer redacts both as every reader does.
  const read = async (cassettePath: string) =>
    parseCassette(await readFile(resolve(root, cassettePath), 'utf8'), cassettePath)
  for (const entry of entries) {
    if (!entry.run) continue
    const path = join(viewDir, entry.cassettePath.replace(/\.jsonl$/, '.html')).replace(/\\/g, '/')
    try {
      const html = renderCompareView(
        { file: entry.cassettePath, cassette: await read(entry.cassettePath) },
        { file: entry.run, cassette: await read(entry.run) },
        { env, run: true },
      )
      const file = resolve(root, path)
      await makeDirectory(dirname(file))
      await writeFile(file, html)
      written.push({ test: entry.test, path })
    } catch (error) {
      written.push({ test: entry.test, error: (error as Error).message })
    }
  }
  return written
}
