import { AsyncLocalStorage } from 'node:async_hooks'
import type { DecisionPosition } from './canonical-key.js'
import { ConfigError } from './errors.js'

/**
 * The lane path of the calling code in each run, one storage for every tape of the process: on
 * Node 20 every storage ever entered stays on the path of every promise created afterwards, so
 * a storage per tape would make a suite slower with each tape that used a lane.
 */
const LANES = new AsyncLocalStorage<ReadonlyMap<Lanes, string>>()

/**
 * The step counters of a run, one per lane. A model request starts a new step of the lane it
 * is made in; every other decision takes the step of the latest one. A sub-agent run in its own
 * lane (`tape.lane`) counts its own steps, so sub-agents running under `Promise.all` get the
 * same positions whatever order their requests arrive in.
 */
export class Lanes {
  private readonly running = new Set<string>()
  private readonly steps = new Map<string, number>()
  /** The lane of code that runs in no lane of its own, once read (see {@link root}). */
  private rootPath: string | undefined

  /**
   * @param rootOf the lane path of code that runs in no `tape.lane` (default the main lane,
   * `''`): a tape that is one of several recording into one cassette (a process of a recorded
   * command) makes its decisions in a lane of its own. A function is called once, at the first
   * decision, so that the lane can depend on what the process did before it.
   */
  constructor(private readonly rootOf: string | (() => string) = '') {}

  /** The current step of the calling lane. */
  get step(): number {
    return this.steps.get(this.current()) ?? 0
  }

  /**
   * The position of a decision of `kind` made now; a model request (`llm`, or a decision that
   * `asksModel`) starts a new step.
   */
  place(kind: string, asksModel = false): DecisionPosition {
    const lane = this.current()
    if (kind === 'llm' || asksModel) this.steps.set(lane, (this.steps.get(lane) ?? 0) + 1)
    const step = this.steps.get(lane) ?? 0
    return lane === '' ? { step } : { step, lane }
  }

  /** The position {@link place} would give a decision of `kind` made now, without taking it. */
  peek(kind: string): DecisionPosition {
    const lane = this.current()
    const step = (this.steps.get(lane) ?? 0) + (kind === 'llm' ? 1 : 0)
    return lane === '' ? { step } : { step, lane }
  }

  /** The lane path of the calling code, `''` on the main lane. */
  get lane(): string {
    return this.current()
  }

  /** Runs `fn` in lane `name`, nested in the calling lane (see {@link Tape.lane}). */
  run<T>(name: string, fn: () => T): T {
    assertLaneName(name)
    const parent = this.current()
    const path = parent === '' ? name : `${parent}/${name}`
    if (this.running.has(path)) {
      throw new ConfigError({
        what: `Lane ${JSON.stringify(path)} is already running`,
        why: 'two concurrent lanes with one name would share a step counter, and their order would decide the keys',
        fix: 'Give concurrent lanes distinct names, e.g. worker-1 and worker-2',
      })
    }
    this.running.add(path)
    let result: T
    try {
      result = LANES.run(new Map(LANES.getStore()).set(this, path), fn)
    } catch (error) {
      this.running.delete(path)
      throw error
    }
    if (result instanceof Promise) {
      return result.finally(() => this.running.delete(path)) as T
    }
    this.running.delete(path)
    return result
  }

  /** The lane path of the calling code, `''` on the main lane. */
  private current(): string {
    return LANES.getStore()?.get(this) ?? this.root()
  }

  private root(): string {
    if (this.rootPath === undefined) {
      const path = typeof this.rootOf === 'function' ? this.rootOf() : this.rootOf
      assertLanePath(path)
      this.rootPath = path
    }
    return this.rootPath
  }
}

const LANE_NAME = /^[A-Za-z0-9_.-]{1,64}$/

function assertLaneName(name: string): void {
  if (LANE_NAME.test(name)) return
  throw new ConfigError({
    what: `Invalid lane name ${JSON.stringify(name)}`,
    why: 'a lane name is 1 to 64 letters, digits, ".", "-" or "_"',
    fix: 'Name the lane after the sub-agent, e.g. tape.lane("researcher", () => research(topic))',
  })
}

/** A lane path: `''` (the main lane), or lane names joined by `/`. */
function assertLanePath(path: string): void {
  if (typeof path !== 'string') assertLaneName(String(path))
  if (path !== '') for (const name of path.split('/')) assertLaneName(name)
}
