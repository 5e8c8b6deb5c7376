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

/**
 * One tool call as a decision: its input (the name, the arguments and the idempotency key) and
 * what runs while recording: the stub when there is one, else `fn`.
 */
export function toolDecision<T>(
  name: string,
  args: unknown,
  fn: () => T | Promise<T>,
  options: ToolOptions,
): { input: unknown; run: () => T | Promise<T> } {
  assertEffect(name, options.effect, options.stub)
  const input =
    options.idempotencyKey === undefined
      ? { name, args }
      : { name, args, idempotencyKey: options.idempotencyKey }
  return { input, run: (options.stub ?? fn) as () => T | Promise<T> }
}

/**
 * Wraps each tool of a map with `tool` (a tape's `tool()`), keeping its parameters; its
 * arguments, less a framework's call context (see {@link keyedToolArgs}), are the decision's.
 */
export function wrapTools<T extends Record<string, ToolDefinition>>(
  definitions: T,
  tool: (name: string, args: unknown, fn: () => unknown, options: ToolOptions) => Promise<unknown>,
): TapedTools<T> {
  const wrapped: Record<string, (...args: unknown[]) => Promise<unknown>> = {}
  for (const [name, definition] of Object.entries(definitions)) {
    const spec = resolveToolSpec(name, definition)
    wrapped[name] = (...args: unknown[]) => {
      const options: ToolOptions = {}
      if (spec.effect) options.effect = spec.effect
      if (spec.stub) options.stub = () => spec.stub!(...args)
      if (spec.idempotencyKey) options.idempotencyKey = spec.idempotencyKey(...args)
      return tool(name, keyedToolArgs(args), () => spec.run(...args), options)
    }
  }
  return wrapped as TapedTools<T>
}

/**
 * The arguments of a wrapped tool call that key it: all of them but a trailing call context
 * that frameworks add and that says nothing about what the tool does. The ai SDK passes
 * `{ toolCallId, messages, abortSignal }` to `execute`, and keying on it would tie every tool
 * call to the whole conversation so far and to a provider's generated id; an `AbortSignal` is
 * not data. The tool itself still receives every argument.
 */
export function keyedToolArgs(args: readonly unknown[]): unknown[] {
  const last = args.at(-1)
  return isCallContext(last) ? args.slice(0, -1) : [...args]
}

function isCallContext(value: unknown): boolean {
  if (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) return true
  if (typeof value !== 'object' || value === null) return false
  const context = value as { toolCallId?: unknown; messages?: unknown }
  return typeof context.toolCallId === 'string' && Array.isArray(context.messages)
}
