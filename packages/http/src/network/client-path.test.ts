import { expect, it } from 'vitest'
import { callerPackage, captureStack, describeClient } from './client-path.js'

/** A stack as V8 writes it, with one frame per file. */
const stack = (...files: string[]) =>
  ['Error', ...files.map((file) => `    at connect (${file}:10:5)`)].join('\n')

it('names the client by the frames of its package, in npm, pnpm and Windows layouts', () => {
  expect(describeClient(stack('/app/node_modules/axios/lib/adapters/http.js'))).toBe(
    'axios (through node:http)',
  )
  expect(
    describeClient(stack('/app/node_modules/.pnpm/got@14.4.0/node_modules/got/dist/source/core/index.js')),
  ).toBe('got (through node:http)')
  expect(describeClient(stack('C:\\app\\node_modules\\node-fetch\\src\\index.js'))).toBe(
    'node-fetch (through node:http)',
  )
  expect(
    describeClient(
      stack('/app/node_modules/.pnpm/undici@7.30.2/node_modules/undici/lib/dispatcher/client.js'),
    ),
  ).toBe('the undici package (a Client, Pool, Agent or dispatcher of its own)')
  expect(describeClient(stack('/app/node_modules/@mswjs/interceptors/lib/node/index.mjs'))).toBe(
    'a request MSW let through',
  )
})

it('does not take a package whose name only starts like a client for it', () => {
  expect(describeClient(stack('/app/node_modules/axios-retry/lib/index.js'))).toBe(
    'a raw TCP socket (net.connect)',
  )
  expect(describeClient(stack('/app/node_modules/undici-types/index.js'))).toBe(
    'a raw TCP socket (net.connect)',
  )
  expect(describeClient(stack('/app/src/my-axios/client.js'))).toBe('a raw TCP socket (net.connect)')
})

it("names Node's own clients by their internal modules", () => {
  expect(describeClient(stack('node:internal/deps/undici/undici'))).toBe(
    "Node's fetch with a dispatcher of its own",
  )
  expect(describeClient(stack('node:internal/http2/core'))).toBe('node:http2')
  expect(describeClient(stack('node:_http_client'))).toBe(
    'node:http/https with an agent that agent-tape does not see',
  )
  expect(describeClient(stack('node:_tls_wrap'))).toBe('a raw TLS socket (tls.connect)')
  expect(describeClient(stack('node:net'))).toBe('a raw TCP socket (net.connect)')
  expect(describeClient('')).toBe('a raw TCP socket (net.connect)')
})

it('names the library rather than the node:http it goes through', () => {
  const axios = stack(
    'node:net',
    'node:_http_client',
    '/app/node_modules/axios/lib/adapters/http.js',
    '/app/src/agent.js',
  )
  expect(describeClient(axios)).toBe('axios (through node:http)')
  // A request MSW let through goes on through node:http: MSW is the path to change.
  const msw = stack('node:_http_client', '/app/node_modules/@mswjs/interceptors/lib/node/chunk.mjs')
  expect(describeClient(msw)).toBe('a request MSW let through')
})

it('captures a stack deeper than the default limit of 10 frames, and restores the limit', () => {
  const saved = Error.stackTraceLimit
  Error.stackTraceLimit = 10
  try {
    const deep = (n: number): string => (n === 0 ? captureStack() : deep(n - 1))
    const captured = deep(30)
    expect(captured.split('\n').filter((line) => line.includes('at deep')).length).toBeGreaterThan(10)
    expect(Error.stackTraceLimit).toBe(10)
  } finally {
    Error.stackTraceLimit = saved
  }
})

it('names the package that made a call, or none when the test’s own code did', () => {
  const frames = (...lines: string[]) => ['Error', ...lines.map((line) => `    at ${line}`)].join('\n')
  expect(
    callerPackage(
      frames(
        'lookup (node:dns:180:3)',
        'resolve (/app/node_modules/.pnpm/cacheable-lookup@7.0.0/node_modules/cacheable-lookup/source/index.js:1:1)',
        'run (/app/test/agent.test.ts:4:1)',
      ),
    ),
  ).toBe('cacheable-lookup')
  expect(callerPackage(frames('spawn (/app/node_modules/@scope/runner/lib/run.js:3:9)'))).toBe(
    '@scope/runner',
  )
  expect(callerPackage(frames('C:\\app\\node_modules\\execa\\lib\\index.js:10:5'))).toBe('execa')
  expect(
    callerPackage(frames('ask (/app/src/agent.ts:3:1)', 'run (/app/node_modules/vitest/dist/index.js:1:1)')),
  ).toBeUndefined()
  expect(callerPackage('')).toBeUndefined()
})
