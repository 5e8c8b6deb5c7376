import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    // Fixture projects are run by their own Vitest from a temporary copy, never by this one.
    exclude: [...configDefaults.exclude, 'test/**/fixtures/**'],
    testTimeout: 30_000,
    // Most of the suite waits on child processes (the real Vitest and Jest, npm installs): two
    // files at a time on a 2-core machine, where Vitest's default (cores - 1) would run one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
})
