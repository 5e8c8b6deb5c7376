import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads'
import { performingForTape } from '../network/performing.js'
import { packageFolder } from '../package-folder.js'
import {
  type GatewayProcess,
  type GatewayProcessOptions,
  gatewayAddress,
  gatewayStart,
} from './gateway-process.js'
import type { GatewayMessage } from './run-gateway.js'
import type { GatewayNotice } from './server.js'
import type { GatewayThreadData } from './worker.js'

/** How long a child's start may wait for the gateway's thread to listen. */
const START_TIMEOUT_MS = 10_000

/**
 * Starts the gateway of a tape's children in a thread of this process (see `worker.ts`), and
 * returns once it listens, synchronously: it is started as a child process starts, which cannot
 * wait. The thread is started as the boundary's own work (no worker guard: its requests upstream
 * are the recording's), and does not keep the process alive. `undefined`, with why, when it
 * could not start.
 */
export function startGatewayThread(options: GatewayProcessOptions): GatewayProcess | { failed: string } {
  const start = gatewayStart(options)
  const channel = new MessageChannel()
  const ready = new SharedArrayBuffer(4)
  const data: GatewayThreadData = { start, port: channel.port2, ready }
  const file = join(packageFolder(), 'dist', 'esm', 'gateway', 'worker.js')
  if (!existsSync(file))
    return { failed: `the gateway's thread entry of @agent-tape/http is missing at ${file}` }
  const worker = performingForTape(
    () => new Worker(file, { workerData: data, transferList: [channel.port2], execArgv: [], stdout: false }),
  )
  worker.unref()
  Atomics.wait(new Int32Array(ready), 0, 0, START_TIMEOUT_MS)
  const first = receiveMessageOnPort(channel.port1)?.message as GatewayMessage | undefined
  if (first?.type !== 'listening') {
    void worker.terminate()
    return { failed: first?.type === 'failed' ? first.message : 'its thread did not listen in time' }
  }
  channel.port1.unref()
  return {
    address: gatewayAddress(options, start, first.url, first.caFile),
    upstreams: start.upstreams,
    close: () =>
      new Promise<GatewayNotice[]>((resolve) => {
        channel.port1.ref()
        channel.port1.on('message', (message: GatewayMessage) => {
          if (message.type !== 'closed') return
          channel.port1.close()
          resolve(message.notices)
        })
        worker.once('exit', () => resolve([]))
        channel.port1.postMessage({ type: 'close' })
      }),
  }
}
