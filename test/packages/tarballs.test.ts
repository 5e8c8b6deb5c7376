import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { promisify } from 'node:util'
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import { beforeAll, describe, expect, it } from 'vitest'
import { type PackedPackage, PUBLISHED, type Published, packPackages } from '../support/pack.js'

// The packages as npm would publish them, checked as a user's install would see them.
const PACKAGES = [...PUBLISHED]
let packed: Record<Published, PackedPackage>

beforeAll(() => {
  packed = packPackages()
}, 120_000)

describe.each(PACKAGES)('%s', (name) => {
  it('ships its README, the LICENSE, its build and the sources its maps point at, and no tests', () => {
    const { files } = packed[name]
    expect(files).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'package.json']))
    expect(files.some((f) => /^dist\/(esm\/)?index\.js$/.test(f))).toBe(true)
    expect(files.filter((f) => /\.test(-d)?\.ts$|tsconfig|\.tsbuildinfo$/.test(f))).toEqual([])
    expect(files.some((f) => f.startsWith('src/'))).toBe(true)
  })

  it('has every source map resolve to a file in the tarball', () => {
    const { dir, files } = packed[name]
    const missing: string[] = []
    for (const map of files.filter((f) => f.endsWith('.map'))) {
      const { sources } = JSON.parse(readFileSync(join(dir, map), 'utf8')) as { sources: string[] }
      for (const source of sources) {
        const target = posix.normalize(posix.join(posix.dirname(map), source))
        if (!existsSync(join(dir, target))) missing.push(`${map} → ${source}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('publishes a manifest with no workspace leftovers, and with the metadata a user looks for', () => {
    const { manifest } = packed[name]
    const text = JSON.stringify(manifest)
    expect(text).not.toMatch(/workspace:|catalog:|\.\.\//)
    expect(manifest.scripts).toBeUndefined()
    expect(manifest).toMatchObject({ license: 'MIT', version: expect.any(String) })
    expect((manifest.keywords as string[]).length).toBeGreaterThan(3)
    if (String(manifest.name).startsWith('@')) expect(manifest.publishConfig).toEqual({ access: 'public' })
  })

  it('passes npm publish --dry-run with no warning, to public access', async () => {
    // npm's own checks of what it would publish: a bin that is not in the tarball, a manifest
    // field it would rewrite, a scoped package that would be published as restricted.
    const { tarball } = packed[name]
    const { stdout, stderr } = await promisify(execFile)('npm', ['publish', '--dry-run', tarball], {
      cwd: dirname(tarball),
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    })
    const output = `${stdout}${stderr}`
    // Nobody is logged in to the registry here: npm says so, and only that.
    const warnings = output
      .split('\n')
      .filter((line) => /^npm (?:warn|error)/i.test(line) && !line.includes('requires you to be logged in'))
    expect(warnings).toEqual([])
    expect(output).toContain(`+ ${packed[name].name}@`)
    expect(output).toContain('with tag latest and public access (dry-run)')
  })

  it('passes publint with no warning', async () => {
    const { dir } = packed[name]
    const { messages, pkg } = await publint({ pkgDir: dir, pack: false, level: 'warning' })
    expect(messages.map((m) => formatMessage(m, pkg))).toEqual([])
  })

  it('resolves its types for ESM and CommonJS consumers (are the types wrong?)', async () => {
    const { tarball } = packed[name]
    const result = await checkPackage(createPackageFromTarballData(new Uint8Array(readFileSync(tarball))), {
      // Jest reads the preset as configuration, and Node loads the preload through NODE_OPTIONS
      // (`--import`, an ES module); no code imports either.
      excludeEntrypoints: ['./jest-preset', './preload'],
    })
    if (!('problems' in result)) throw new Error(`${name} has no types`)
    // node10 resolution predates `exports`; the Vitest package is ESM only, as Vitest is.
    const ignored = name === 'vitest' ? ['node10', 'node16-cjs'] : ['node10']
    const problems = result.problems.filter(
      (p) => !('resolutionKind' in p) || !ignored.includes(p.resolutionKind as string),
    )
    expect(problems).toEqual([])
  })
})

it('packs the eight published packages under their npm names', () => {
  expect(PACKAGES.map((p) => packed[p].name)).toEqual([
    '@agent-tape/core',
    '@agent-tape/http',
    '@agent-tape/inspect',
    '@agent-tape/runner-kit',
    '@agent-tape/vitest',
    '@agent-tape/jest',
    '@agent-tape/cli',
    '@agent-tape/capture',
  ])
})
