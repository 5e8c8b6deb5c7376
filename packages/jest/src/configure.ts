import type { Normalizer, Redactor, SecretAllowList, UsageReader } from '@agent-tape/core'
import { type EndpointPattern, installHttpBoundary } from '@agent-tape/http'

/** Options for a setup file: rules that are functions or RegExps, which Jest's JSON config cannot carry. */
export interface TapeRuntimeOptions {
  redactors?: readonly Redactor[]
  normalizers?: readonly Normalizer[]
  allowSecrets?: SecretAllowList
  /** More model endpoints, RegExps included. */
  modelEndpoints?: readonly EndpointPattern[]
  /** Reads token usage from a recorded model decision, for the summary's replayed tokens. */
  usage?: UsageReader
  /** SDK versions to write in each cassette header. */
  sdks?: Record<string, string>
}

const KEY = Symbol.for('agent-tape.jest.runtime-options')
const holder = globalThis as { [KEY]?: TapeRuntimeOptions }

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
  const current = holder[KEY] ?? {}
  if (options.modelEndpoints?.length) installHttpBoundary({ modelEndpoints: options.modelEndpoints })
  holder[KEY] = {
    ...current,
    ...options,
    redactors: [...(current.redactors ?? []), ...(options.redactors ?? [])],
    normalizers: [...(current.normalizers ?? []), ...(options.normalizers ?? [])],
    allowSecrets: [...(current.allowSecrets ?? []), ...(options.allowSecrets ?? [])],
  }
}

export function runtimeOptions(): TapeRuntimeOptions {
  return holder[KEY] ?? {}
}
