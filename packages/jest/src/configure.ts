import type { EndpointPattern } from '@agent-tape/http'
import {
  createRuntimeOptionsSlot,
  type TapeRuntimeOptions as KitRuntimeOptions,
} from '@agent-tape/runner-kit/setup'
import { httpBoundary } from './load-lazily.js'

/** Options for a setup file: rules that are functions or RegExps, which Jest's JSON config cannot carry. */
export interface TapeRuntimeOptions extends KitRuntimeOptions {
  /** More model endpoints, RegExps included. */
  modelEndpoints?: readonly EndpointPattern[]
}

const slot = createRuntimeOptionsSlot<TapeRuntimeOptions>('agent-tape.jest.runtime-options')

/**
 * Adds options for every tape of the test file; call it in a file listed in
 * `setupFilesAfterEnv` (after the preset's). Rules add to those of the Jest config.
 *
 * @example
 * // test/setup.ts
 * import { configureTape } from '@agent-tape/jest'
 * configureTape({ redactors: [(text, path) => (path.endsWith('.ssn') ? '[SSN]' : text)] })
 */
export function configureTape(options: TapeRuntimeOptions): void {
  if (options.modelEndpoints?.length)
    httpBoundary().installHttpBoundary({ modelEndpoints: options.modelEndpoints })
  slot.add(options)
}

export function runtimeOptions(): TapeRuntimeOptions {
  return slot.current()
}
