/**
 * The kept runs waiting to be recorded and written, taken one at a time, in the order they ended:
 * deciding a run's requests and writing its file is work for the server's CPU, which a burst of
 * failures must not turn into hundreds of recordings at once (each holding its copies and
 * streams). A run waits holding only what it observed, which `maxQueuedBytes` bounds.
 */
export class KeptQueue {
  private readonly waiting: (() => Promise<void>)[] = []
  private running = false
  private idle: (() => void)[] = []

  /** The kept runs waiting or being written. */
  get size(): number {
    return this.waiting.length + (this.running ? 1 : 0)
  }

  add(work: () => Promise<void>): void {
    this.waiting.push(work)
    if (!this.running) void this.drain()
  }

  /** Resolves once nothing waits and nothing is being written. */
  settled(): Promise<void> {
    if (this.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.idle.push(resolve))
  }

  private async drain(): Promise<void> {
    this.running = true
    for (let work = this.waiting.shift(); work; work = this.waiting.shift()) {
      try {
        await work()
      } catch {
        // Each piece of work says what became of its run; one failing stops none after it.
      }
    }
    this.running = false
    for (const resolve of this.idle.splice(0)) resolve()
  }
}
