import { assertTapeName, type SetupHook, TapeNameRegistry } from '@agent-tape/runner-kit/tape'
import { type RunnerTestCase, type RunnerTestFile, TestRunner } from 'vitest'
import './meta.js'

const MODIFIERS = new Set(['concurrent', 'sequential', 'skip', 'only', 'todo', 'fails'])
const registries = new WeakMap<RunnerTestFile, TapeNameRegistry>()
// A chain can wrap one definition twice (`skipIf(false)` returns the API it was called on, which
// is already wrapped): each test claims its name once.
const claimed = new WeakSet<RunnerTestCase>()

/**
 * Wraps the extended test API so that every test it defines claims its tape name when it is
 * collected: duplicates fail the file before anything runs, and the reporter learns the
 * names of skipped tapes too (a filtered run must not call their cassettes obsolete).
 */
export function trackTapeNames<T extends object>(api: T): T {
  return new Proxy(api, {
    apply(target, thisArg, args) {
      return collecting(() => Reflect.apply(target as () => unknown, thisArg, args))
    },
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof property !== 'string' || typeof value !== 'function') return value
      if (MODIFIERS.has(property)) return trackTapeNames(value)
      if (property === 'for' || property === 'each') {
        return (...cases: unknown[]) => {
          const define = Reflect.apply(value, receiver, cases) as (...a: unknown[]) => unknown
          return (...a: unknown[]) => collecting(() => define(...a))
        }
      }
      if (property === 'skipIf' || property === 'runIf') {
        return (condition: unknown) => trackTapeNames(Reflect.apply(value, receiver, [condition]))
      }
      if (property === 'extend' || property === 'override' || property === 'scoped') {
        return (...a: unknown[]) => trackTapeNames(Reflect.apply(value, receiver, a))
      }
      return value
    },
  })
}

function collecting<R>(define: () => R): R {
  const collector = TestRunner.getCurrentSuite()
  const before = collector.tasks.length
  const result = define()
  for (const task of collector.tasks.slice(before)) {
    if (task.type === 'test') claim(task as RunnerTestCase)
  }
  return result
}

function registryOf(file: RunnerTestFile): TapeNameRegistry {
  let registry = registries.get(file)
  if (!registry) {
    registry = new TapeNameRegistry()
    registries.set(file, registry)
  }
  return registry
}

/** Claims the cassette of a setup tape as the file is collected (see `setup-hooks.ts`). */
export function claimSetupTape(file: RunnerTestFile, hook: SetupHook, describes: readonly string[]): void {
  registryOf(file).claimSetup(file.name, hook, describes)
}

function claim(test: RunnerTestCase): void {
  if (claimed.has(test)) return
  claimed.add(test)
  const file = test.file
  const registry = registryOf(file)
  assertTapeName(test.name, file.name)
  const describes = describesOf(test)
  registry.claim(file.name, test.name, describes, {
    testName: [...describes, test.name].join(' > '),
    ...(test.location ? { line: test.location.line } : {}),
  })
  test.meta.agentTape = { name: test.name, describes }
}

/** Whether `test` is the only tape of its file with its name, once the file is collected. */
export function hasUniqueName(test: RunnerTestCase): boolean {
  return registries.get(test.file)?.isUnique(test.file.name, test.name) === true
}

/**
 * The names of the describe blocks around `test`, outermost first, while it is collected: the
 * top-level describe has no parent suite yet, nor does a top-level test.
 */
function describesOf(test: RunnerTestCase): string[] {
  const names: string[] = []
  for (let suite = test.suite; suite && suite !== test.file; suite = suite.suite) names.unshift(suite.name)
  return names
}
