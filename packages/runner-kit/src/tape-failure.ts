/**
 * The failure a tape test reports. A replay miss reaches the test twice: as the tape's own failure,
 * and inside the error the SDK made of the miss's answer (`400 [agent-tape] Replay miss…` in an
 * `APIError`, JSON-escaped in Gemini's `ApiError`, a bare fetch's body in the user's own error).
 * The test reports the tape's failure, first and once, without the stack frames of the code that
 * found it; the SDK's error around it is dropped, and an unrelated error of the test (an assertion
 * on the answer of an agent that swallowed the miss) is kept after it.
 */

/** What is compared of an error: a thrown one, or a runner's serialized copy of it. */
export interface ErrorLike {
  name?: unknown
  message?: unknown
}

/**
 * The failure as reported: its message, without the frames of the agent-tape code that found it,
 * and, when given, one frame at `site` (`/abs/test/a.test.ts:12:3`, where the test is defined):
 * a runner that takes only the first line of a stack without frames for the message (Jest) then
 * shows the whole report.
 */
export function withoutFrames<E extends Error>(failure: E, site?: string): E {
  Object.defineProperty(failure, 'stack', {
    value: `${failure.name}: ${failure.message}${site ? `\n    at ${site}` : ''}`,
    configurable: true,
    writable: true,
  })
  return failure
}

/**
 * Where the caller's caller was called from in `file` (an absolute path), as `file:line:column`,
 * read from a stack taken now: the line of a test file that defines a tape test.
 */
export function callSiteIn(file: string, stack = new Error().stack ?? ''): string | undefined {
  const normalized = file.replace(/\\/g, '/')
  for (const line of stack.split('\n')) {
    const frame = /(?:\(|\bat )(?:file:\/\/)?([^()]+?):(\d+):(\d+)\)?$/.exec(line.trim())
    if (frame && frame[1]!.replace(/\\/g, '/') === normalized) return `${file}:${frame[2]}:${frame[3]}`
  }
  return undefined
}

/** Whether `error` is `failure` itself (or a runner's copy of it). */
export function isSameFailure(error: unknown, failure: ErrorLike): boolean {
  if (typeof error !== 'object' || error === null) return false
  const e = error as ErrorLike
  return e.name === failure.name && e.message === failure.message
}

/**
 * Whether `error` carries `failure` without being it: the first line of its message appears,
 * as written or JSON-escaped, in the error's message, in what an assertion error received (its
 * `actual`: the SDK's error made of the miss's answer, when the test expected the run's own
 * error with `rejects.toThrow('…')` or compared its message; a runner may cut that value short
 * in the message), or in an error it wraps (`cause`, the `errors` of an aggregate, `lastError`
 * of a retry).
 */
export function carriesFailure(error: unknown, failure: ErrorLike): boolean {
  const line = String(failure.message).split('\n')[0] ?? ''
  if (line === '') return false
  const needles = [line, JSON.stringify(line).slice(1, -1)]
  const seen = new Set<unknown>()
  const visit = (value: unknown, depth: number): boolean => {
    if (depth > 8 || typeof value !== 'object' || value === null || seen.has(value)) return false
    seen.add(value)
    const e = value as {
      message?: unknown
      actual?: unknown
      cause?: unknown
      errors?: unknown
      lastError?: unknown
    }
    const texts = [e.message, e.actual].filter((text): text is string => typeof text === 'string')
    if (texts.some((text) => needles.some((needle) => text.includes(needle)))) return true
    const inner = [e.cause, e.lastError, ...(Array.isArray(e.errors) ? e.errors : [])]
    return inner.some((i) => visit(i, depth + 1))
  }
  return !isSameFailure(error, failure) && visit(error, 0)
}

/**
 * The errors a test reports once its tape failed with `failure`: the failure first (a copy the
 * runner made of it among `errors`, when there is one), then the test's other errors, without
 * those that only carry the failure.
 */
export function failureFirst<T>(failure: ErrorLike, errors: readonly T[], own?: T): T[] {
  const itself = errors.find((e) => isSameFailure(e, failure)) ?? own
  const others = errors.filter((e) => !isSameFailure(e, failure) && !carriesFailure(e, failure))
  return itself === undefined ? others : [itself, ...others]
}
