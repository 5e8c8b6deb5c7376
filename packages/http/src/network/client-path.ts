/**
 * Names the client that opened a connection, from the call stack at the moment it connects,
 * so that a blocked connection says which code path to change.
 */
const CLIENTS: [RegExp, string][] = [
  [/[\\/]@mswjs[\\/]interceptors[\\/]|[\\/]msw[\\/]lib[\\/]/, 'a request MSW let through'],
  [/node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?axios[\\/]/, 'axios (through node:http)'],
  [/node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?got[\\/]/, 'got (through node:http)'],
  [
    /node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?node-fetch[\\/]/,
    'node-fetch (through node:http)',
  ],
  [
    /node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?undici[\\/@]/,
    'the undici package (a Client, Pool, Agent or dispatcher of its own)',
  ],
  [/node:internal\/deps\/undici/, "Node's fetch with a dispatcher of its own"],
  [/node:internal\/http2|node:http2/, 'node:http2'],
  [
    /node:_http_client|node:_http_agent|node:https/,
    'node:http/https with an agent that agent-tape does not see',
  ],
  [/node:_tls_wrap|node:tls/, 'a raw TLS socket (tls.connect)'],
]

export function describeClient(stack: string): string {
  for (const [pattern, name] of CLIENTS) if (pattern.test(stack)) return name
  return 'a raw TCP socket (net.connect)'
}

/** The current call stack, deep enough to reach the client's frames. */
export function captureStack(): string {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 60
  const stack = new Error().stack ?? ''
  Error.stackTraceLimit = limit
  return stack
}
