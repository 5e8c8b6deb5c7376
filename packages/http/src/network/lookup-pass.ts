const KEY = Symbol.for('agent-tape.lookup-pass')
// Shared by the ESM and CJS builds of this package, as the guards are.
const holder = globalThis as { [KEY]?: { host: string | undefined } }
holder[KEY] ??= { host: undefined }
const state = holder[KEY]

/**
 * Runs `connect`, which the socket guard let through to `host` while a tape runs (loopback, a host
 * in `allowHosts`, whatever its port), so that the DNS guard passes the lookup it makes. Node
 * looks the host up synchronously inside `Socket#connect`; a flag rather than an async context, so
 * that nothing the socket later does inherits the pass.
 */
export function lookingUpFor<T>(host: string, connect: () => T): T {
  const previous = state.host
  state.host = host.replace(/^\[|\]$/g, '').toLowerCase()
  try {
    return connect()
  } finally {
    state.host = previous
  }
}

/** Whether a lookup of `host` is the one a connection the socket guard let through makes now. */
export function isLookupForAllowedConnection(host: string): boolean {
  return state.host !== undefined && state.host === host.toLowerCase()
}
