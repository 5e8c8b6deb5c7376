import { AsyncLocalStorage } from 'node:async_hooks'
import type { TapeMode } from './modes.js'
import type { Tape } from './tape.js'

interface TapeContext {
  storage: AsyncLocalStorage<Tape>
  /** Set while the function of a recorded decision runs (see {@link runInsideDecision}). */
  inside?: AsyncLocalStorage<true>
  active: Set<Tape>
  /** Called as each tape starts to run (see {@link onTapeRun}). */
  runHooks?: Set<() => void>
  /** Labels that boundaries give their decisions (see {@link addDecisionLabels}). */
  labels?: Set<DecisionLabeler>
  /** Awaited before each tape opens (see {@link beforeTapeOpens}). */
  openHooks?: Set<() => Promise<unknown>>
  /** Called as each tape finishes (see {@link onTapeFinish}). */
  finishHooks?: Set<(tape: Tape) => void | Promise<void>>
  /** The mode a test runner resolved for every tape of the run (see {@link setRunMode}). */
  runMode?: TapeMode
  /** The tape of the whole process, current where no `runWithTape` says otherwise (see {@link setProcessTape}). */
  processTape?: Tape
}

/** A boundary's label for a decision it made (`model request (gpt-4o)`), or `undefined` for others. */
export type DecisionLabeler = (kind: string, input: unknown) => string | undefined

// One context per process, even when both the ESM and the CJS build of this package are
// loaded (Jest loads CJS inside its sandbox, adapters may load ESM): a global symbol.
const KEY = Symbol.for('agent-tape.tape-context')
const holder = globalThis as { [KEY]?: TapeContext }
holder[KEY] ??= { storage: new AsyncLocalStorage<Tape>(), active: new Set() }
const context: TapeContext = holder[KEY]

/**
 * Runs `fn` with `tape` as the current tape: boundaries that cannot be handed a tape (a
 * `fetch` deep inside an SDK) find it through this async context. Concurrent tests each run
 * inside their own call, so their requests never cross.
 *
 * @example
 * await runWithTape(tape, () => runTest())
 */
export function runWithTape<T>(tape: Tape, fn: () => T): T {
  if (context.runHooks) for (const hook of context.runHooks) hook()
  context.active.add(tape)
  let result: T
  try {
    result = context.storage.run(tape, fn)
  } catch (error) {
    context.active.delete(tape)
    throw error
  }
  if (result instanceof Promise) return result.finally(() => context.active.delete(tape)) as T
  context.active.delete(tape)
  return result
}

/**
 * Says which mode the tapes of this run take, as a test runner resolves it once for the run:
 * boundaries read it for work done outside every tape (a client connected in `beforeAll`).
 */
export function setRunMode(mode: TapeMode | undefined): void {
  context.runMode = mode
}

/** The mode the runner resolved for this run's tapes; `undefined` without a runner (tapes opened by hand). */
export function runMode(): TapeMode | undefined {
  return context.runMode
}

/**
 * Whether the run's tapes may replay, as the runner resolved its mode: `replay`, or `auto`, which
 * replays every cassette that exists. Work done outside every tape cannot tell which tape it
 * serves, so in such a run it must neither start nor reach what a replay answers.
 */
export function replaysOutsideTapes(): boolean {
  return context.runMode === 'replay' || context.runMode === 'auto'
}

/** The tape of the code that is running now, if any. */
export function currentTape(): Tape | undefined {
  return context.storage.getStore() ?? context.processTape
}

/**
 * Makes `tape` the tape of the whole process: current wherever no {@link runWithTape} call
 * says otherwise, including code that starts before the tape opened (a module's top level, a
 * timer set at import). For a process that is one run, such as each Node process of a command
 * recorded by `agent-tape record`: there is no async context to start it in. Returns a function
 * that ends it.
 */
export function setProcessTape(tape: Tape): () => void {
  if (context.processTape) context.active.delete(context.processTape)
  context.processTape = tape
  context.active.add(tape)
  return () => {
    if (context.processTape !== tape) return
    context.processTape = undefined
    context.active.delete(tape)
  }
}

/** How many tapes are running right now, in this process. */
export function activeTapeCount(): number {
  return context.active.size
}

/** The tapes running right now, in this process. */
export function activeTapes(): Tape[] {
  return [...context.active]
}

/**
 * How many running tapes claim what is done outside all of them: those that fail closed. A
 * request or connection made outside every tape while one of them runs cannot be attributed, and
 * is refused rather than guessed. The tapes of runs captured in a server fail open
 * (`failOpen`): a server's other traffic passes beside them.
 */
export function claimingTapeCount(): number {
  if (context.active.size === 0) return 0
  let count = 0
  for (const tape of context.active) if (!tape.failOpen) count++
  return count
}

/**
 * Registers `hook` to run as each tape starts (before its body), for boundaries that must check
 * the process's state once per test, such as a network client replaced since the last test.
 * Returns a function that unregisters it.
 */
export function onTapeRun(hook: () => void): () => void {
  context.runHooks ??= new Set()
  context.runHooks.add(hook)
  return () => context.runHooks?.delete(hook)
}

/**
 * Runs `fn`, the function behind one recorded decision (a tool, an MCP call): whatever it does
 * at other boundaries (a request to the tool's API, a model call of a sub-agent tool) is part of
 * that decision's outcome, not a decision of its own. Those boundaries let it pass, for real,
 * unrecorded: a replay answers the outer decision and never runs `fn`.
 */
export function runInsideDecision<T>(fn: () => T): T {
  context.inside ??= new AsyncLocalStorage<true>()
  return context.inside.run(true, fn)
}

/** Whether the code running now is the function behind a recorded decision. */
export function isInsideDecision(): boolean {
  return context.inside?.getStore() === true
}

/**
 * Lets a boundary label the decisions it makes, in every report that names one (a miss's nearest
 * decision, unused decisions, matchers, the secret scan): the HTTP boundary reads the model of a
 * model request through its provider's codec. Returns a function that removes the labeler.
 */
export function addDecisionLabels(labeler: DecisionLabeler): () => void {
  context.labels ??= new Set()
  context.labels.add(labeler)
  return () => context.labels?.delete(labeler)
}

/** The label a boundary gives a decision, when one does. */
export function boundaryLabel(kind: string, input: unknown): string | undefined {
  if (!context.labels) return undefined
  for (const labeler of context.labels) {
    const label = labeler(kind, input)
    if (label !== undefined) return label
  }
  return undefined
}

/**
 * Registers `hook` to be awaited before each tape opens, for a boundary that loads the code it
 * needs only once there is a tape to serve (request handling, report labels): every tape opens
 * through `openTape`, so no tape runs before the hooks have settled. Returns a function that
 * unregisters it.
 */
export function beforeTapeOpens(hook: () => Promise<unknown>): () => void {
  context.openHooks ??= new Set()
  context.openHooks.add(hook)
  return () => context.openHooks?.delete(hook)
}

/** Awaits the hooks registered with {@link beforeTapeOpens}. */
export async function prepareTapeOpen(): Promise<void> {
  if (!context.openHooks?.size) return
  await Promise.all([...context.openHooks].map((hook) => hook()))
}

/**
 * Registers `hook` to run as each tape finishes, before its end state is taken: for a boundary
 * that learns of a tape's problems outside its async context (a worker thread the tape's test
 * started, which reports its refused connections through shared memory), so that the tape fails
 * with them. Returns a function that unregisters it.
 */
export function onTapeFinish(hook: (tape: Tape) => void | Promise<void>): () => void {
  context.finishHooks ??= new Set()
  context.finishHooks.add(hook)
  return () => context.finishHooks?.delete(hook)
}

/**
 * Runs the hooks registered with {@link onTapeFinish}, and waits for those that return a promise
 * (the child processes of a tape, whose reports are read as it finishes); a hook that throws or
 * rejects does not stop the others.
 */
export async function runFinishHooks(tape: Tape): Promise<void> {
  if (!context.finishHooks?.size) return
  const waiting: Promise<void>[] = []
  for (const hook of context.finishHooks) {
    try {
      const done = hook(tape)
      if (done) waiting.push(done.catch(() => {}))
    } catch {
      // A boundary's report must not keep the tape from finishing.
    }
  }
  await Promise.all(waiting)
}
