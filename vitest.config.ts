import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    // Fixture projects are run by their own Vitest from a temporary copy, never by this one.
    exclude: [...configDefaults.exclude, 'test/**/fixtures/**'],
    testTimeout: 30_000,
  },
})
