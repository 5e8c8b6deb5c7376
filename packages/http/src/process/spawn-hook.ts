import childProcess, { ChildProcess } from 'node:child_process'
import type { NodePatch } from '../network/node-patch.js'

/**
 * The variables a child needs to get the boundary, computed for each child as it starts from
 * the environment the code gave it (`read` reads one of its variables).
 */
export type ChildVariables = (read: (name: string) => string | undefined) => Record<string, string>

type Env = Record<string, string | undefined>

/**
 * Gives every child process this process starts the variables its {@link ChildVariables} return,
 * whatever environment the code passes (`env: { PATH }` included): all the asynchronous functions
 * of `node:child_process` start through `ChildProcess#spawn`, and the three synchronous ones are
 * wrapped one by one. The variables are computed once per child, in the order the code starts
 * them (by the latest installation, the process boundary's: there is one per process).
 */
export const childVariablesHook: NodePatch<ChildVariables> = {
  name: 'child-variables',
  apply(configs) {
    const variables: ChildVariables = (read) => {
      let last: ChildVariables | undefined
      for (const config of configs) last = config
      return last ? last(read) : {}
    }
    const prototype = ChildProcess.prototype as unknown as {
      spawn(options: { envPairs?: string[] }): unknown
    }
    const spawn = prototype.spawn
    prototype.spawn = function (this: unknown, options) {
      if (options && Array.isArray(options.envPairs)) {
        const pairs = options.envPairs
        const read = (name: string) => {
          const pair = pairs.findLast((p) => p.startsWith(`${name}=`))
          return pair === undefined ? undefined : pair.slice(name.length + 1)
        }
        options.envPairs = withPairs(pairs, variables(read))
      }
      return spawn.call(this, options)
    }
    const module = childProcess as unknown as Record<string, (...args: unknown[]) => unknown>
    const originals = {
      spawnSync: module.spawnSync!,
      execSync: module.execSync!,
      execFileSync: module.execFileSync!,
    }
    // Where the options object stands: after the optional argument list, or second.
    module.spawnSync = wrapSync(originals.spawnSync, true, variables)
    module.execFileSync = wrapSync(originals.execFileSync, true, variables)
    module.execSync = wrapSync(originals.execSync, false, variables)
    return {
      state: undefined,
      restore: () => {
        prototype.spawn = spawn
        Object.assign(module, originals)
      },
    }
  },
}

function wrapSync(
  original: (...args: unknown[]) => unknown,
  takesArgList: boolean,
  variables: ChildVariables,
): (...args: unknown[]) => unknown {
  return function (this: unknown, ...args: unknown[]) {
    const at = takesArgList && !Array.isArray(args[1]) ? 1 : takesArgList ? 2 : 1
    const given = args[at]
    const options = typeof given === 'object' && given !== null ? (given as { env?: Env }) : {}
    const next = [...args]
    while (next.length < at) next.push(takesArgList && next.length === 1 ? [] : undefined)
    const env = options.env ?? process.env
    next[at] = { ...options, env: { ...env, ...variables((name) => env[name]) } }
    return original.apply(this, next)
  }
}

function withPairs(pairs: readonly string[], added: Record<string, string>): string[] {
  const names = new Set(Object.keys(added))
  const kept = pairs.filter((pair) => !names.has(pair.slice(0, pair.indexOf('='))))
  return [...kept, ...Object.entries(added).map(([name, value]) => `${name}=${value}`)]
}
