import { createRequire } from 'node:module'

// Jest runs the CommonJS build, in its sandbox: there `require` is the test file's own, which
// keeps what it loads in the file's module registry. The ES build (never run by Jest) asks Node.
const load: NodeJS.Require = typeof require === 'function' ? require : createRequire(import.meta.url)

/**
 * What defining tape tests takes (names, the registry that refuses two tapes with one cassette,
 * where a test is defined): loaded by the first `it.tape` of a test file, synchronously (Jest
 * collects a file's tests synchronously), not by the setup file that every test file runs.
 */
export function tapeKit(): typeof import('@agent-tape/runner-kit/tape') {
  return load('@agent-tape/runner-kit/tape')
}

/** agent-tape's errors, loaded where one is thrown. */
export function runtimeErrors(): Pick<typeof import('@agent-tape/core/runtime'), 'ConfigError'> {
  return load('@agent-tape/core/runtime')
}

/** jest-each, loaded by the first `it.tape.each`. */
export function jestEach(): typeof import('jest-each') {
  return load('jest-each')
}

/** The HTTP boundary's user API, loaded by a setup file that adds model endpoints (`configureTape`). */
export function httpBoundary(): Pick<typeof import('@agent-tape/http'), 'installHttpBoundary'> {
  return load('@agent-tape/http')
}
