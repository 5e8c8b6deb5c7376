import { currentTape } from '@agent-tape/core/context'
import type { TapeNameRegistry } from '@agent-tape/runner-kit/tape'
import type { TapeBridge } from './bridge.js'
import { jestEach, runtimeErrors, tapeKit } from './load-lazily.js'
import { runTapeTest, type TapeContext } from './run-tape-test.js'

export type { TapeContext } from './run-tape-test.js'

/** The body of a tape test. */
export type TapeFn = (context: TapeContext) => unknown

/** `it.tape.each(table)(name, fn)`: one tape per row; the name is formatted like Jest's `each`. */
export interface TapeEach {
  // A tuple constraint makes `[['Paris'], ['Oslo']]` infer rows as `[string]`, not `string[]`.
  <T extends readonly [unknown, ...unknown[]]>(
    table: readonly T[],
  ): (name: string, fn: (...args: [...T, TapeContext]) => unknown, timeout?: number) => void
  <T extends readonly unknown[]>(
    table: readonly T[],
  ): (name: string, fn: (...args: [...T, TapeContext]) => unknown, timeout?: number) => void
  <T>(
    table: readonly T[],
  ): (name: string, fn: (arg: T, context: TapeContext) => unknown, timeout?: number) => void
  (
    strings: TemplateStringsArray,
    ...values: unknown[]
    // biome-ignore lint/suspicious/noExplicitAny: a template table's rows are typed by its headings only at run time
  ): (name: string, fn: (arg: any, context: TapeContext) => unknown, timeout?: number) => void
}

/** `it.tape.failing(name, fn)`: a tape test that passes when its body fails, as Jest's `failing`. */
export interface TapeFailing {
  (name: string, fn: TapeFn, timeout?: number): void
  each: TapeEach
}

/** One way of defining tape tests: `it.tape`, `it.tape.only`, `it.tape.concurrent.skip`, … */
export interface TapeDefine {
  (name: string, fn: TapeFn, timeout?: number): void
  each: TapeEach
  failing: TapeFailing
}

/**
 * `it.tape(name, fn)`: a test whose boundaries are recorded to, and replayed from, the
 * cassette `__cassettes__/<test file>/<describe>/…/<name>.jsonl` beside the test file.
 */
export interface TapeTestAPI extends TapeDefine {
  only: TapeDefine
  skip: TapeDefine
  /** A tape still to write: listed as todo, and its name is kept (its cassette is not obsolete). */
  todo(name: string): void
  concurrent: TapeDefine & { only: TapeDefine; skip: TapeDefine }
}

type JestBase = (name: string, fn: () => unknown, timeout?: number) => void
type JestDefine = JestBase & { failing: JestBase }
type JestTest = JestDefine & {
  only: JestDefine
  skip: JestDefine
  todo(name: string): void
  concurrent: JestDefine & { only: JestDefine; skip: JestDefine }
}

/** The registry of the file's tape names (tests' and setup tapes'), made by the first that claims one. */
export function registryOf(bridge: TapeBridge): TapeNameRegistry {
  bridge.registry ??= new (tapeKit().TapeNameRegistry)()
  return bridge.registry
}

/**
 * Builds `it.tape` on Jest's `test`, for the test file the bridge describes. What defining a tape
 * checks loads with the file's first `it.tape` (see load-lazily.ts).
 */
export function createTapeApi(test: JestTest, bridge: TapeBridge): TapeTestAPI {
  const claim = (name: string, names: readonly string[]) => {
    registryOf(bridge).claim(bridge.testFile, name, names.slice(0, -1), { testName: names.join(' > ') })
    bridge.tapes.push([...names])
  }
  const assertTapeName = (name: unknown) => tapeKit().assertTapeName(name, bridge.testFile)
  const definer = (base: JestBase): TapeFailing => {
    const define = (name: string, fn: TapeFn, timeout?: number): void => {
      assertTapeName(name)
      if (typeof fn !== 'function') {
        throw new (runtimeErrors().ConfigError)({
          what: `it.tape(${JSON.stringify(name)}) in ${bridge.testFile} has no test function`,
          why: `its second argument is ${typeof fn}`,
          fix: 'Pass the body: it.tape("name", async ({ tape }) => { ... })',
        })
      }
      let names: readonly string[] = [name]
      // The line that defines the test: the frame Jest shows under a tape's failure.
      const site = tapeKit().callSiteIn(`${bridge.root.replace(/\\/g, '/')}/${bridge.testFile}`)
      bridge.lastDefined = undefined
      base(name, () => runTapeTest({ bridge, name, names, site, body: fn, timeout }), timeout)
      names = bridge.lastDefined ?? [name]
      claim(name, names)
    }
    // jest-each formats each row's name and calls `define` with a body that applies the row;
    // the row's callback gets the tape from the async context the tape test runs in.
    const each = ((...table: unknown[]) =>
      (name: string, fn: (...args: unknown[]) => unknown, timeout?: number) => {
        // When a row fails (an invalid name), jest-each defines the template instead, to report
        // the error: report the row's own error, which names the row.
        let failure: unknown
        const defineRow = (title: string, body: TapeFn, rowTimeout?: number) => {
          if (failure !== undefined) throw failure
          try {
            define(title, body, rowTimeout)
          } catch (error) {
            failure = error
            throw error
          }
        }
        ;(jestEach().bind(defineRow as never, false) as (...t: unknown[]) => (...a: unknown[]) => void)(
          ...table,
        )(name, (...row: unknown[]) => fn(...row, { tape: currentTape()! }), timeout)
      }) as TapeEach
    return Object.assign(define, { each })
  }
  // Each way of defining, with its `failing` variant (Jest has `failing` on every one of them).
  const withFailing = (base: JestDefine): TapeDefine => {
    return Object.assign(definer(base), { failing: definer(base.failing.bind(base)) })
  }
  const concurrent = Object.assign(withFailing(test.concurrent), {
    only: withFailing(test.concurrent.only),
    skip: withFailing(test.concurrent.skip),
  })
  const todo = (name: string): void => {
    assertTapeName(name)
    bridge.lastDefined = undefined
    test.todo(name)
    claim(name, bridge.lastDefined ?? [name])
  }
  return Object.assign(withFailing(test), {
    only: withFailing(test.only),
    skip: withFailing(test.skip),
    todo,
    concurrent,
  })
}
