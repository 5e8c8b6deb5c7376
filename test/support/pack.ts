import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export const REPO_ROOT = resolve(import.meta.dirname, '../..')
/** The packages published to npm, by folder under packages/. */
export const PUBLISHED = [
  'core',
  'http',
  'inspect',
  'runner-kit',
  'vitest',
  'jest',
  'cli',
  'capture',
] as const
export type Published = (typeof PUBLISHED)[number]

export interface PackedPackage {
  /** The npm package name, e.g. `@agent-tape/core`. */
  name: string
  tarball: string
  /** Where the tarball was extracted: `<dir>/package.json` is the published manifest. */
  dir: string
  files: string[]
  manifest: Record<string, unknown>
}

/**
 * Packs the published packages as npm would publish them (pnpm resolves `workspace:` and
 * `catalog:` versions), into a temporary folder, and extracts each one. The packages must be
 * built first (`pnpm build`).
 */
export function packPackages(): Record<Published, PackedPackage> {
  const out = mkdtempSync(join(tmpdir(), 'agent-tape-tarballs-'))
  const packed = {} as Record<Published, PackedPackage>
  for (const folder of PUBLISHED) {
    const before = new Set(readdirSync(out))
    execFileSync('npx', ['-y', 'pnpm@12.4.2', 'pack', '--pack-destination', out], {
      cwd: join(REPO_ROOT, 'packages', folder),
      stdio: 'pipe',
    })
    const tarball = join(out, readdirSync(out).find((f) => f.endsWith('.tgz') && !before.has(f))!)
    const dir = join(out, folder)
    mkdirSync(dir)
    execFileSync('tar', ['-xzf', tarball, '-C', dir])
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((f) => f.replace(/^package\//, ''))
    const manifest = JSON.parse(readFileSync(join(dir, 'package', 'package.json'), 'utf8'))
    packed[folder] = { name: manifest.name, tarball, dir: join(dir, 'package'), files, manifest }
  }
  return packed
}
