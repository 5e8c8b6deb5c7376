import { syncBuiltinESMExports } from 'node:module'

/** A patch as applied: what the code around it reads while it stands, and how to take it back. */
export interface AppliedPatch<State> {
  state: State
  /** Puts back what `apply` replaced (only what still stands as it left it). */
  restore(): void
}

/**
 * One patch of Node: a prototype's method (`net.Socket#connect`), a module's functions (`dns`,
 * `child_process`), a class (`worker_threads.Worker`). Every boundary installed in the process
 * shares it: the first installation applies it, each adds its configuration to the set the patch
 * reads on every call, and the last one out restores Node. It is kept on `globalThis` under
 * `Symbol.for('agent-tape.<name>')`, so the ESM and the CommonJS build of the package, loaded side
 * by side, apply it once rather than stacking two.
 */
export interface NodePatch<Config, State = undefined> {
  /** What it patches, in its key: `socket-guard`, `dns-guard`. */
  readonly name: string
  /** Patches Node; reads `configs` on every call, so installations added later count. */
  apply(configs: ReadonlySet<Config>): AppliedPatch<State>
}

interface Installed<Config, State> {
  configs: Set<Config>
  applied: AppliedPatch<State>
}

type Holder = Record<symbol, Installed<unknown, unknown> | undefined>

const keyOf = (patch: NodePatch<never, unknown>) => Symbol.for(`agent-tape.${patch.name}`)

/**
 * Installs `patch` for `config` (applying it if no installation has), and returns the removal of
 * this installation. Modules imported with `import { name } from 'node:…'` read a snapshot of
 * the module's functions: {@link installPatches} refreshes it, once for a list.
 */
export function installPatch<Config, State>(patch: NodePatch<Config, State>, config: Config): () => void {
  const holder = globalThis as unknown as Holder
  const key = keyOf(patch as NodePatch<never, State>)
  let installed = holder[key] as Installed<Config, State> | undefined
  if (!installed) {
    const configs = new Set<Config>()
    installed = { configs, applied: patch.apply(configs) }
    holder[key] = installed as Installed<unknown, unknown>
  }
  const state = installed
  state.configs.add(config)
  return () => {
    state.configs.delete(config)
    if (state.configs.size === 0 && holder[key] === (state as Installed<unknown, unknown>)) {
      state.applied.restore()
      delete holder[key]
    }
  }
}

/**
 * Installs each patch of a list for its configuration, then refreshes the named exports of
 * Node's modules once for all of them; the removal removes them all and refreshes them again.
 */
export function installPatches(entries: readonly (() => () => void)[]): () => void {
  const removals = entries.map((install) => install())
  syncBuiltinESMExports()
  return () => {
    for (const remove of removals) remove()
    syncBuiltinESMExports()
  }
}

/** The state of `patch` while an installation holds it in this process, else `undefined`. */
export function patchState<State>(patch: NodePatch<never, State>): State | undefined {
  return ((globalThis as unknown as Holder)[keyOf(patch)] as Installed<unknown, State> | undefined)?.applied
    .state
}

/** The configurations of every installation of `patch` in this process (none when it is not applied). */
export function patchConfigs<Config>(patch: NodePatch<Config, unknown>): ReadonlySet<Config> {
  return (
    ((globalThis as unknown as Holder)[keyOf(patch as NodePatch<never, unknown>)]?.configs as
      | ReadonlySet<Config>
      | undefined) ?? new Set()
  )
}
