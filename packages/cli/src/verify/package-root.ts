import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * The project a cassette belongs to: the nearest folder above it with a `package.json`, where its
 * test runner ran, and so the folder its harness paths are relative to. In a monorepo each
 * package's cassettes are judged against that package, wherever `verify` runs from.
 */
export function packageRootOf(file: string, fallback: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return fallback
  }
}
