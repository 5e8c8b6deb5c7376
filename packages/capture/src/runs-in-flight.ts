import type { RecordedRun } from './recorded-run.js'

/**
 * The recorded runs not yet ended, each with its start, and the clock that ends those still
 * going after `maxRunMs` (a handler that never settles, an answer that never ends): they end as
 * failed, timed out, so that a hung run is kept and counted rather than held forever. The clock
 * ticks only while runs are in flight, and never keeps the process alive.
 */
export class RunsInFlight {
  private readonly runs = new Map<RecordedRun, number>()
  private timer: NodeJS.Timeout | undefined
  private emptied: (() => void)[] = []

  constructor(private readonly maxRunMs: number) {}

  get size(): number {
    return this.runs.size
  }

  add(run: RecordedRun): void {
    this.runs.set(run, performance.now())
    if (this.timer) return
    // A run ends at most a quarter of its limit (and at most a second) late.
    this.timer = setInterval(() => this.expire(), Math.min(1000, Math.max(5, this.maxRunMs / 4)))
    this.timer.unref()
  }

  delete(run: RecordedRun): void {
    if (!this.runs.delete(run) || this.runs.size > 0) return
    clearInterval(this.timer)
    this.timer = undefined
    for (const resolve of this.emptied.splice(0)) resolve()
  }

  /** Resolves once no run is in flight. */
  settled(): Promise<void> {
    if (this.runs.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.emptied.push(resolve))
  }

  /** Ends every run still in flight as failed, with why. */
  endAll(why: string): void {
    for (const run of [...this.runs.keys()]) run.expire(why)
  }

  private expire(): void {
    const now = performance.now()
    for (const [run, started] of [...this.runs]) {
      if (now - started >= this.maxRunMs)
        run.expire(`it was still running after maxRunMs (${this.maxRunMs} ms)`)
    }
  }
}
