import { syncBuiltinESMExports } from 'node:module'

/**
 * The builtins whose functions the setup stands in for and that a test file may never load: loading
 * `node:http2` loads `node:http`, `node:https` and `node:tls` with it, about a third of what a
 * setup costs a file that makes no request through them.
 */
export interface WatchedBuiltins {
  http: typeof import('node:http')
  https: typeof import('node:https')
  http2: typeof import('node:http2')
  worker_threads: typeof import('node:worker_threads')
}

type Plan = { [Id in keyof WatchedBuiltins]?: (module: WatchedBuiltins[Id]) => void }

/** What {@link standInOnLoad} leaves to its caller. */
export interface BuiltinWatch {
  /** Loads every builtin of the plan not loaded yet and stands in for it (what the first tape needs). */
  settle(): void
  /** Stops watching (the setup is disposed): a builtin loaded from now on is left as it is. */
  stop(): void
}

/** The parts of `node:module`'s `registerHooks` (Node.js 22.15 and later) read here. */
type RegisterHooks = (hooks: {
  resolve(
    specifier: string,
    context: unknown,
    next: (specifier: string, context: unknown) => { url: string },
  ): { url: string }
}) => { deregister(): void }

interface Watch {
  plan: Plan
  done: Set<string>
}

const watches = new Set<Watch>()
let hook: { deregister(): void } | undefined
/** Node's own `process.getBuiltinModule`, which passes no resolution hook: held while watching. */
let getBuiltinModule: typeof process.getBuiltinModule | undefined

/** A builtin, loaded if it is not. */
function builtin(id: string): never {
  return (getBuiltinModule ?? process.getBuiltinModule)(id) as never
}

/** Stops watching for `watch`; the hook goes once nothing is watched. */
function unwatch(watch: Watch): void {
  watches.delete(watch)
  if (watches.size === 0) {
    hook?.deregister()
    hook = undefined
    if (getBuiltinModule && process.getBuiltinModule === seeGetBuiltinModule)
      process.getBuiltinModule = getBuiltinModule
    getBuiltinModule = undefined
  }
}

/** `process.getBuiltinModule` while watching: a module that asks for a builtin this way is seen too. */
function seeGetBuiltinModule(id: string): unknown {
  const module = builtin(id)
  seeBuiltins(id.startsWith('node:') ? id : `node:${id}`, undefined, (url) => ({ url }))
  return module
}

/**
 * Runs each entry of `plan` (which stands in for properties of that builtin) once, before any module
 * receives the builtin: at once if the process has loaded it (Vitest and Jest load some of them
 * themselves), else when it is first imported or required, or at {@link BuiltinWatch.settle}.
 * Seeing an import needs `module.registerHooks` (Node.js 22.15 and later, outside Jest's sandbox);
 * without it, every entry runs at once, loading its builtin.
 */
export function standInOnLoad(plan: Plan): BuiltinWatch {
  const watch = { plan, done: new Set<string>() }
  const run = (id: keyof WatchedBuiltins) => {
    if (watch.done.has(id)) return
    watch.done.add(id)
    ;(plan[id] as (module: never) => void)(builtin(`node:${id}`))
  }
  const ids = Object.keys(plan) as (keyof WatchedBuiltins)[]
  for (const id of ids) if (isLoaded(id)) run(id)
  if (watch.done.size < ids.length) {
    watches.add(watch)
    hook ??= registerResolveHook()
    if (hook && !getBuiltinModule) {
      getBuiltinModule = process.getBuiltinModule
      process.getBuiltinModule = seeGetBuiltinModule as typeof process.getBuiltinModule
    }
    // No hook to see an import by: every builtin of the plan is loaded and stood in for now.
    if (!hook) {
      for (const id of ids) run(id)
      unwatch(watch)
    }
  }
  return {
    settle() {
      for (const id of ids) run(id)
      unwatch(watch)
      syncBuiltinESMExports()
    },
    stop: () => unwatch(watch),
  }
}

/**
 * The resolution hook, where the process has `module.registerHooks` and lets a test file use it
 * (Jest's sandbox refuses it: its test code's imports do not pass Node's loader).
 */
function registerResolveHook(): { deregister(): void } | undefined {
  const { registerHooks } = builtin('node:module') as { registerHooks?: RegisterHooks }
  try {
    return registerHooks?.({ resolve: seeBuiltins })
  } catch {
    return undefined
  }
}

/** A resolution hook that stands in for a watched builtin the moment it is asked for. */
function seeBuiltins(
  specifier: string,
  context: unknown,
  next: (specifier: string, context: unknown) => { url: string },
): { url: string } {
  const resolved = next(specifier, context)
  if (!resolved.url.startsWith('node:')) return resolved
  const id = resolved.url.slice(5)
  let ran = false
  for (const watch of watches) {
    const standIn = watch.plan[id as keyof WatchedBuiltins] as ((module: never) => void) | undefined
    if (!standIn || watch.done.has(id)) continue
    watch.done.add(id)
    standIn(builtin(resolved.url))
    ran = true
    // Every builtin of the plan stands in: the hook has nothing left to see for it (it is removed
    // once this resolution is over).
    if (watch.done.size === Object.keys(watch.plan).length) queueMicrotask(() => unwatch(watch))
  }
  // An ES module's named import reads a snapshot of the builtin's exports.
  if (ran) syncBuiltinESMExports()
  return resolved
}

/** Whether the process has loaded the builtin (Node lists each module it loads). */
function isLoaded(id: string): boolean {
  const list = (process as { moduleLoadList?: readonly string[] }).moduleLoadList
  return !list || list.includes(`NativeModule ${id}`)
}
