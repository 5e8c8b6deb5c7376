import { formatMessage, formatReason, type MessageParts } from './format-message.js'

/** Stable codes of every error agent-tape throws. */
export type AgentTapeErrorCode =
  | 'ERR_TAPE_MISS'
  | 'ERR_TAPE_UNUSED'
  | 'ERR_TAPE_ENV_DRIFT'
  | 'ERR_TAPE_HARNESS'
  | 'ERR_TAPE_CORRUPT'
  | 'ERR_TAPE_NO_CASSETTE'
  | 'ERR_TAPE_SECRET'
  | 'ERR_TAPE_CONFIG'
  | 'ERR_TAPE_USAGE'
  | 'ERR_TAPE_UNATTRIBUTED'
  | 'ERR_TAPE_NETWORK'
  | 'ERR_TAPE_DRIFT'
  | 'ERR_TAPE_TIMING'
  | 'ERR_TAPE_NO_KEY'
  | 'ERR_TAPE_BUDGET'

/** What every {@link AgentTapeErrorCode} starts with: how {@link isAgentTapeError} knows one. */
const CODE_PREFIX = 'ERR_TAPE_'

/** The literal `name` of each of agent-tape's error classes, which their guards check. */
export type AgentTapeErrorName =
  | 'AgentTapeError'
  | 'CassetteCorruptError'
  | 'SecretLeakError'
  | 'ConfigError'
  | 'ReplayMiss'
  | 'DivergenceError'

/**
 * Base class of agent-tape's own errors. Errors thrown by user code (a tool that throws)
 * are never wrapped in it: they are recorded and replayed as that tool's error.
 */
export class AgentTapeError extends Error {
  override name: AgentTapeErrorName = 'AgentTapeError'
  readonly code: AgentTapeErrorCode

  constructor(code: AgentTapeErrorCode, parts: MessageParts | string, options?: { cause?: unknown }) {
    super(typeof parts === 'string' ? parts : formatMessage(parts), options)
    this.code = code
  }
}

/** Thrown when a cassette file cannot be read as a valid cassette. */
export class CassetteCorruptError extends AgentTapeError {
  override name = 'CassetteCorruptError' as const
  /** Why the line is damaged and how to recover, without the file and line (for per-file reports). */
  readonly reason: string
  constructor(
    parts: MessageParts,
    readonly file: string,
    readonly line: number,
  ) {
    super('ERR_TAPE_CORRUPT', parts)
    this.reason = formatReason(parts)
  }
}

/** Thrown when a secret-shaped value would be written into a cassette. */
export class SecretLeakError extends AgentTapeError {
  override name = 'SecretLeakError' as const
  constructor(
    parts: MessageParts,
    readonly findings: readonly { path: string; rule: string }[],
  ) {
    super('ERR_TAPE_SECRET', parts)
  }
}

/** Thrown for invalid options: unknown modes, irreversible tools without a stub, bad names. */
export class ConfigError extends AgentTapeError {
  override name = 'ConfigError' as const
  constructor(parts: MessageParts) {
    super('ERR_TAPE_CONFIG', parts)
  }
}

/**
 * The shape check behind every `is*()` guard: the literal `name`, and the given `code` (or any
 * string code), without `instanceof`, which fails across realms.
 */
export function hasShape(error: unknown, name: AgentTapeErrorName, code?: AgentTapeErrorCode): boolean {
  if (typeof error !== 'object' || error === null) return false
  const e = error as { name?: unknown; code?: unknown }
  return e.name === name && (code === undefined ? typeof e.code === 'string' : e.code === code)
}

/**
 * True for any agent-tape error, also across realms (Jest's sandbox has its own `Error`): its
 * code is one of agent-tape's, whichever package or copy of core threw it.
 */
export function isAgentTapeError(error: unknown): error is AgentTapeError {
  if (typeof error !== 'object' || error === null) return false
  const e = error as { name?: unknown; code?: unknown }
  return typeof e.name === 'string' && typeof e.code === 'string' && e.code.startsWith(CODE_PREFIX)
}

export function isCassetteCorruptError(error: unknown): error is CassetteCorruptError {
  return hasShape(error, 'CassetteCorruptError', 'ERR_TAPE_CORRUPT')
}

export function isSecretLeakError(error: unknown): error is SecretLeakError {
  return hasShape(error, 'SecretLeakError', 'ERR_TAPE_SECRET')
}

export function isConfigError(error: unknown): error is ConfigError {
  return hasShape(error, 'ConfigError', 'ERR_TAPE_CONFIG')
}

/** Whether `error` is the engine's stack overflow (a walk over data nested too deeply). */
export function isStackOverflow(error: unknown): error is RangeError {
  return error instanceof RangeError && /call stack/i.test(error.message)
}

/** The error for a decision input nested deeper than a walk over it can go. */
export function deepInputError(kind: string, overflow: RangeError): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Cannot key a decision of kind "${kind}"`,
    why: `its input is nested deeper than agent-tape can walk (the JavaScript stack overflowed: ${overflow.message}); inputs nested a few thousand levels deep are handled, a structure this deep is most likely a cycle unrolled by a serializer or a bug in the code that built it`,
    fix: 'Flatten the input (or pass a summary of it to the boundary), then run the test again',
  })
}
