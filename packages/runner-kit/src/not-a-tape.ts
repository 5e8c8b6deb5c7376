/**
 * What a tape matcher throws for anything but a tape. A `TypeError`, as `expect` throws for a
 * value of the wrong type, rather than one of agent-tape's errors: it can be thrown before any
 * tape opened, from the setup file's light entry, where the errors' module is not loaded.
 */
export function notATape(matcher: string, received: unknown): TypeError {
  return new TypeError(
    `${matcher}() expects the tape of the test (the \`tape\` of it.tape), got ${String(received)}`,
  )
}
