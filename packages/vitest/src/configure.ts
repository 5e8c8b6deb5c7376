import type { Normalizer, Redactor, SecretAllowList, UsageReader } from '@agent-tape/core'

/** Worker-side options: rules that are functions and cannot travel through the plugin's options. */
export interface TapeRuntimeOptions {
  redactors?: readonly Redactor[]
  normalizers?: readonly Normalizer[]
  allowSecrets?: SecretAllowList
  /** Reads token usage from a recorded model decision, for the summary's replayed tokens. */
  usage?: UsageReader
  /** SDK versions to write in each cassette header. */
  sdks?: Record<string, string>
}

const KEY = Symbol.for('agent-tape.vitest.runtime-options')
const holder = globalThis as { [KEY]?: TapeRuntimeOptions }

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
  const current = holder[KEY] ?? {}
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
