/** What a tape matcher throws for anything but a tape. */
export function notATape(matcher: string, received: unknown): TypeError {
  return new TypeError(
    `${matcher}() expects the tape of the test (the \`tape\` of it.tape), got ${String(received)}`,
  )
}
