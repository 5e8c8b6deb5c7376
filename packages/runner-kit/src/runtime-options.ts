import type { Normalizer, Redactor, SecretAllowList } from '@agent-tape/core/internal'
import type { UsageReader } from '@agent-tape/inspect/cost'

/** Options given in a setup file: rules that are functions, which a runner's config cannot carry. */
export interface TapeRuntimeOptions {
  redactors?: readonly Redactor[]
  normalizers?: readonly Normalizer[]
  allowSecrets?: SecretAllowList
  /** Reads token usage from a recorded model decision, for the summary's replayed tokens. */
  usage?: UsageReader
  /** SDK versions to write in each cassette header. */
  sdks?: Record<string, string>
}

/** The runtime options of one runner integration, kept on `globalThis` under one key. */
export interface RuntimeOptionsSlot<T extends TapeRuntimeOptions> {
  /** Adds options: rules add to those already given, other fields replace them. */
  add(options: T): void
  current(): T
}

/**
 * A slot for runtime options on `globalThis`, so every copy of a runner package loaded in a
 * worker (the setup file's and the test file's) reads the options the setup file added.
 *
 * @example
 * const runtime = createRuntimeOptionsSlot<TapeRuntimeOptions>('agent-tape.vitest.runtime-options')
 * runtime.add({ redactors: [(text) => text.replace(/\d{3}-\d{2}-\d{4}/g, '[SSN]')] })
 */
export function createRuntimeOptionsSlot<T extends TapeRuntimeOptions>(key: string): RuntimeOptionsSlot<T> {
  const symbol = Symbol.for(key)
  const holder = globalThis as { [symbol]?: T }
  return {
    add(options) {
      const current = holder[symbol] ?? ({} as T)
      holder[symbol] = {
        ...current,
        ...options,
        redactors: [...(current.redactors ?? []), ...(options.redactors ?? [])],
        normalizers: [...(current.normalizers ?? []), ...(options.normalizers ?? [])],
        allowSecrets: [...(current.allowSecrets ?? []), ...(options.allowSecrets ?? [])],
      }
    },
    current() {
      return holder[symbol] ?? ({} as T)
    },
  }
}
