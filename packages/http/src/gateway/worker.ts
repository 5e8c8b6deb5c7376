import { type MessagePort, workerData } from 'node:worker_threads'
import { type GatewayMessage, type GatewayStart, runGateway } from './run-gateway.js'

/** What a thread of the gateway is started with (see `startGatewayThread`). */
export interface GatewayThreadData {
  start: GatewayStart
  /** Where it says what it does; `listening` or `failed` first, with `ready` set and notified. */
  port: MessagePort
  /** One Int32: 0 until the first message is on `port`. */
  ready: SharedArrayBuffer
}

/**
 * The gateway in a thread of a test's process, for the child processes of a tape that are not
 * Node: its own event loop serves them while the test's thread waits on one of them
 * (`execFileSync('python3', …)`), and it loads no interception, so its `fetch` upstream is
 * Node's own. It says where it listens before anything else, so that its starter can wait for it
 * synchronously (a child process is being started), and on `close` stops, writes the report of
 * each lane, says what it did not tape, and ends.
 */
async function main(): Promise<void> {
  const { start, port, ready } = workerData as GatewayThreadData
  const flag = new Int32Array(ready)
  const first = (message: GatewayMessage) => {
    port.postMessage(message)
    Atomics.store(flag, 0, 1)
    Atomics.notify(flag, 0)
  }
  let gateway: Awaited<ReturnType<typeof runGateway>>
  try {
    gateway = await runGateway(start, process.env)
  } catch (error) {
    const failure = error as NodeJS.ErrnoException
    first({ type: 'failed', code: failure.code, message: failure.message })
    port.close()
    return
  }
  port.on('message', async (message: { type?: string }) => {
    if (message?.type !== 'close') return
    const notices = await gateway.close()
    port.postMessage({ type: 'closed', notices } satisfies GatewayMessage)
    port.close()
  })
  first({ type: 'listening', url: gateway.url, ...(gateway.caFile ? { caFile: gateway.caFile } : {}) })
}

void main()
