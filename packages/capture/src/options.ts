import {
  assertKnownOptions,
  ConfigError,
  type Normalizer,
  type Redactor,
  type SecretAllowList,
} from '@agent-tape/core/internal'
import type { EndpointPattern } from '@agent-tape/http'

/** One captured run's cassette, handed to a {@link CaptureOptions.sink}. */
export interface CapturedFile {
  /** `<time>_<name>_<run id>.jsonl`, the name it gets in a `dir` (see decision 0023). */
  name: string
  /** The cassette: JSON Lines, scanned for secrets, at most `maxBytes`. */
  text: string
  /** The run's id, also in the file name, the header and on the trace span. */
  runId: string
  /** The name the app gave the run (`capture.run(name, …)`). */
  runName: string
  /** Whether the run failed (it threw, or the app marked it failed). */
  failed: boolean
}

export interface CaptureOptions {
  /**
   * The directory each kept run is written to, one file per run, atomically. Created when
   * missing. Give `dir` or `sink`.
   */
  dir?: string
  /**
   * Receives each kept run's file instead of a directory (object storage, a queue, a database).
   * A sink that throws or rejects drops that run (counted, logged once).
   */
  sink?: (file: CapturedFile) => void | Promise<void>
  /** The share of runs recorded, 0 to 1 (default 1). At 0 nothing is installed or recorded. */
  sample?: number
  /**
   * Which recorded runs are kept: `'failed'` (default) the runs that threw or that the app
   * marked with `capture.fail(reason)`; `'all'` every recorded run.
   */
  keep?: 'failed' | 'all'
  /**
   * The largest run kept, in bytes (default 5 MB): what its requests and answers hold while it
   * runs (past it they are let go at once), and its cassette. A larger run is dropped and counted.
   */
  maxBytes?: number
  /**
   * How long a run may take, in milliseconds (default 5 minutes): a run still going then (a
   * handler that never settles, a stream that never ends) ends as failed, timed out, and is kept
   * under `keep: 'failed'`. Its code goes on untouched.
   */
  maxRunMs?: number
  /**
   * How many bytes the kept runs waiting to be written may hold (default 64 MB). A kept run is
   * dropped (`backlog`) only past it, under a burst of failures faster than the disk or the sink.
   */
  maxQueuedBytes?: number
  /** In a `dir`: how many captured runs are kept, the oldest removed first (default 1000). */
  maxFiles?: number
  /** In a `dir`: how long a captured run is kept, in milliseconds (default: no limit). */
  maxAgeMs?: number
  /** Redactors for the recorded inputs, as in tests (`{ name, pattern }` or `(text, path) => text`). */
  redactors?: readonly Redactor[]
  /** Normalizers for the recorded inputs, as in tests. */
  normalizers?: readonly Normalizer[]
  /** Model endpoints beyond the known provider hosts (a gateway, a self-hosted model). */
  modelEndpoints?: readonly EndpointPattern[]
  /** Values the secret scan must accept, as in tests. */
  allowSecrets?: SecretAllowList
  /**
   * Where capture says what it dropped (once per reason) and that a directory cannot be
   * written (default `console.error`).
   */
  log?: (message: string) => void
}

/**
 * Records a capture's runs by intercepting their requests as a test's tape does, rather than
 * observing them and deciding them only for the runs kept. Not an option of the API: what tests
 * set to compare the two ways, which must write the same cassettes.
 */
export const INTERCEPT_RUNS: unique symbol = Symbol.for('agent-tape.capture.intercept-runs')

/** The options with their defaults, checked. */
export interface ResolvedCaptureOptions {
  /** Whether runs are observed (the default), or intercepted (see {@link INTERCEPT_RUNS}). */
  observe: boolean
  target: { dir: string } | { sink: (file: CapturedFile) => void | Promise<void> }
  sample: number
  keep: 'failed' | 'all'
  maxBytes: number
  maxRunMs: number
  maxQueuedBytes: number
  maxFiles: number
  maxAgeMs: number | undefined
  redactors: readonly Redactor[]
  normalizers: readonly Normalizer[]
  modelEndpoints: readonly EndpointPattern[]
  allowSecrets: SecretAllowList
  log: (message: string) => void
}

const OPTION_NAMES: readonly (keyof CaptureOptions)[] = [
  'dir',
  'sink',
  'sample',
  'keep',
  'maxBytes',
  'maxRunMs',
  'maxQueuedBytes',
  'maxFiles',
  'maxAgeMs',
  'redactors',
  'normalizers',
  'modelEndpoints',
  'allowSecrets',
  'log',
]

const WHERE = 'the createCapture() options'

/** Checks the options and fills in the defaults; throws a `ConfigError` naming the option. */
export function resolveCaptureOptions(options: CaptureOptions): ResolvedCaptureOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalid('options', options, 'an object such as { dir: "captures" }')
  }
  assertKnownOptions(options, OPTION_NAMES, WHERE)
  const { dir, sink } = options
  if ((dir === undefined) === (sink === undefined)) {
    throw new ConfigError({
      what: `${dir === undefined ? 'No' : 'Both'} "dir" and "sink" in ${WHERE}`,
      why: 'captured runs go to one place: a directory (one file per run) or a sink you write',
      fix: "Pass dir: 'captures', or sink: async (file) => upload(file.name, file.text)",
    })
  }
  if (dir !== undefined && (typeof dir !== 'string' || dir === ''))
    throw invalid('dir', dir, 'a directory path')
  if (sink !== undefined && typeof sink !== 'function') throw invalid('sink', sink, 'a function (file) => …')
  const sample = options.sample ?? 1
  if (typeof sample !== 'number' || !(sample >= 0 && sample <= 1)) {
    throw invalid('sample', sample, 'a number from 0 (record nothing) to 1 (record every run)')
  }
  const keep = options.keep ?? 'failed'
  if (keep !== 'failed' && keep !== 'all') throw invalid('keep', keep, '"failed" or "all"')
  const maxBytes = positive('maxBytes', options.maxBytes, 5 * 1024 * 1024)
  const maxRunMs = positive('maxRunMs', options.maxRunMs, 5 * 60_000)
  const maxQueuedBytes = positive('maxQueuedBytes', options.maxQueuedBytes, 64 * 1024 * 1024)
  const maxFiles = positive('maxFiles', options.maxFiles, 1000)
  const maxAgeMs = options.maxAgeMs === undefined ? undefined : positive('maxAgeMs', options.maxAgeMs, 0)
  if (sink && (options.maxFiles !== undefined || options.maxAgeMs !== undefined)) {
    throw new ConfigError({
      what: `"maxFiles" and "maxAgeMs" need a "dir" in ${WHERE}`,
      why: 'they bound the files of a capture directory, and a sink keeps its files itself',
      fix: 'Set the retention of the storage your sink writes to, or capture into a dir',
    })
  }
  for (const name of ['redactors', 'normalizers', 'modelEndpoints', 'allowSecrets'] as const) {
    if (options[name] !== undefined && !Array.isArray(options[name]))
      throw invalid(name, options[name], 'an array')
  }
  if (options.log !== undefined && typeof options.log !== 'function') {
    throw invalid('log', options.log, 'a function (message) => void')
  }
  return {
    observe: (options as { [INTERCEPT_RUNS]?: boolean })[INTERCEPT_RUNS] !== true,
    target: sink ? { sink } : { dir: dir! },
    sample,
    keep,
    maxBytes,
    maxRunMs,
    maxQueuedBytes,
    maxFiles,
    maxAgeMs,
    redactors: options.redactors ?? [],
    normalizers: options.normalizers ?? [],
    modelEndpoints: options.modelEndpoints ?? [],
    allowSecrets: options.allowSecrets ?? [],
    log: options.log ?? ((message) => console.error(message)),
  }
}

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw invalid(name, value, 'a whole number of at least 1')
  }
  return value
}

function invalid(name: string, value: unknown, expected: string): ConfigError {
  const shown = typeof value === 'function' ? 'a function' : (JSON.stringify(value) ?? String(value))
  return new ConfigError({
    what: `Invalid "${name}" in ${WHERE}`,
    why: `it is ${shown}, and it must be ${expected}`,
    fix: 'Fix the option (see docs/capture.md for each option)',
  })
}
