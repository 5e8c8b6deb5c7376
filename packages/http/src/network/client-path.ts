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

/**
 * The current call stack, deep enough to reach the client's frames; from the caller of `below`
 * on, when given (the function a guard wraps).
 */
export function captureStack(below?: (...args: never[]) => unknown): string {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 60
  const holder: { stack?: string } = {}
  Error.captureStackTrace(holder, below ?? captureStack)
  Error.stackTraceLimit = limit
  return holder.stack ?? ''
}

// The package of a frame: the last `node_modules/<name>/` or `node_modules/@scope/<name>/` in it
// (npm, pnpm, Windows).
const PACKAGE_FRAME = /node_modules[\\/](?!\.)((?:@[^\\/]+[\\/])?[^\\/]+)[\\/](?!.*node_modules[\\/])/

/**
 * The package whose code made a call, from a stack captured below the function it called: its
 * first frame outside Node's own modules, when that frame is in a package (a DNS query from
 * `cacheable-lookup`, a process from `execa`); `undefined` when it is the test's own code.
 */
export function callerPackage(stack: string): string | undefined {
  for (const line of stack.split('\n').slice(1)) {
    if (/\((?:node:|internal\/)|at (?:node:|internal\/)/.test(line)) continue
    return PACKAGE_FRAME.exec(line)?.[1]?.replace(/\\/g, '/')
  }
  return undefined
}
