import { ConfigError } from './errors.js'

// biome-ignore lint/suspicious/noExplicitAny: tool maps hold functions of any signature
export type AnyFunction = (...args: any[]) => any

/**
 * - `read`: no side effect (the default).
 * - `write`: a side effect that is fine to repeat against a test system.
 * - `irreversible`: payments, deploys, message sends: it must come with a `stub`, which runs
 *   instead of `run` whenever the tape is not replaying; replay runs neither.
 */
export type ToolEffect = 'read' | 'write' | 'irreversible'

export interface ToolSpec<F extends AnyFunction = AnyFunction> {
  run: F
  effect?: ToolEffect
  /** Runs instead of `run` while recording (required for irreversible tools). */
  stub?: F
  /** Adds an idempotency key to the tool's decision key, e.g. an order id. */
  idempotencyKey?: (...args: Parameters<F>) => string
}

export type ToolDefinition = AnyFunction | ToolSpec

/** A taped tool keeps its parameters; its result is always a promise. */
export type TapedTool<F extends AnyFunction> = (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>

export type TapedTools<T extends Record<string, ToolDefinition>> = {
  [K in keyof T]: T[K] extends ToolSpec<infer F>
    ? TapedTool<F>
    : T[K] extends AnyFunction
      ? TapedTool<T[K]>
      : never
}

export interface ToolOptions {
  effect?: ToolEffect
  stub?: () => unknown
  idempotencyKey?: string
}

const EFFECTS: readonly ToolEffect[] = ['read', 'write', 'irreversible']

/** Normalizes a tool map entry and rejects invalid definitions at definition time. */
export function resolveToolSpec(name: string, definition: ToolDefinition): ToolSpec {
  const spec: ToolSpec = typeof definition === 'function' ? { run: definition } : definition
  if (typeof spec !== 'object' || spec === null || typeof spec.run !== 'function') {
    throw new ConfigError({
      what: `Invalid tool ${JSON.stringify(name)}`,
      why: 'a tool is a function or an object { run, effect?, stub? } whose run is a function',
      fix: 'Pass the tool function itself, or { run: fn }',
    })
  }
  assertEffect(name, spec.effect, spec.stub)
  return spec
}

export function assertEffect(name: string, effect: ToolEffect | undefined, stub: unknown): void {
  if (effect !== undefined && !EFFECTS.includes(effect)) {
    throw new ConfigError({
      what: `Invalid effect ${JSON.stringify(effect)} for tool ${JSON.stringify(name)}`,
      why: `valid effects are ${EFFECTS.map((e) => `"${e}"`).join(', ')}`,
      fix: 'Use one of them',
    })
  }
  if (effect === 'irreversible' && typeof stub !== 'function') {
    throw new ConfigError({
      what: `Tool ${JSON.stringify(name)} is declared irreversible without a stub`,
      why: 'an irreversible tool (a payment, a deploy, a message send) must never run for real from a test, and while recording agent-tape runs its stub instead',
      fix: `Add a stub with the same signature: { run: ${name}, effect: 'irreversible', stub: fake${capitalize(name)} }`,
    })
  }
}

function capitalize(text: string): string {
  return text.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())
}
