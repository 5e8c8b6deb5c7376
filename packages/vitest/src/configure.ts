import { createRuntimeOptionsSlot, type TapeRuntimeOptions } from '@agent-tape/runner-kit/setup'

const slot = createRuntimeOptionsSlot<TapeRuntimeOptions>('agent-tape.vitest.runtime-options')

/**
 * Adds worker-side options for every tape of the test files that run after it; call it in a
 * setup file listed in `test.setupFiles`. Rules add to those given to the plugin.
 *
 * @example
 * // test/setup.ts
 * import { configureTape } from '@agent-tape/vitest'
 * configureTape({ redactors: [(text, path) => (path.endsWith('.ssn') ? '[SSN]' : text)] })
 */
export function configureTape(options: TapeRuntimeOptions): void {
  slot.add(options)
}

export function runtimeOptions(): TapeRuntimeOptions {
  return slot.current()
}

export type { TapeRuntimeOptions }
