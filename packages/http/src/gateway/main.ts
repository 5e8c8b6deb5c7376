import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ProcessSessionConfig } from '../process/session.js'
import { sessionFiles } from '../process/session.js'
import { GatewayLanes } from './lanes.js'
import { createRunCa, type RunCa } from './run-ca.js'
import { startGateway } from './server.js'

/** What the parent of the gateway's process tells it, as its one argument (JSON). */
export interface GatewayStart {
  /** The session folder of the command (see `openProcessSession`). */
  dir: string
  /** The upstream of each route (see `upstreamsOf`). */
  upstreams: Record<string, string>
  maxRequestBytes: number
  port: number
  /** End HTTPS tunnels with a certificate authority made for the run (`--intercept-https`). */
  ca: boolean
}

/** What the gateway's process tells its parent over IPC. */
export type GatewayMessage =
  | { type: 'listening'; url: string; caFile?: string }
  | { type: 'failed'; code: string | undefined; message: string }
  | { type: 'closed'; notices: { request: string; why: string }[] }

/**
 * The gateway's own process (started by `agent-tape record` and `replay` beside the command):
 * a Node process without the boundary's interception, so that its `fetch` upstream is Node's
 * own, and apart from the CLI's (which may be a test's process, with tapes of its own). It
 * listens, says where, and on `close` stops, writes the report of each lane, says what it did not
 * tape, and exits.
 */
async function main(): Promise<void> {
  const start = JSON.parse(process.argv[2] ?? '{}') as GatewayStart
  const send = (message: GatewayMessage) =>
    new Promise<void>((resolve) => process.send!(message, () => resolve()))
  const config = JSON.parse(readFileSync(sessionFiles.config(start.dir), 'utf8')) as ProcessSessionConfig
  const lanes = new GatewayLanes(start.dir, config, process.env)
  let gateway: Awaited<ReturnType<typeof startGateway>>
  let ca: RunCa | undefined
  let caFile: string | undefined
  try {
    if (start.ca) {
      ca = createRunCa()
      // The certificate only (its key stays in this process), in the session folder removed with the run.
      caFile = join(start.dir, 'ca-bundle.pem')
      writeFileSync(caFile, ca.bundlePem)
    }
    gateway = await startGateway({
      mode: config.mode,
      upstreams: start.upstreams,
      boundary: {
        // What arrives on a route is a model request: its upstream is a model endpoint by definition.
        modelEndpoints: [...config.modelEndpoints, ...Object.values(start.upstreams)],
        allowHosts: config.allowHosts,
        tapeHosts: config.tapeHosts ?? [],
        timing: 'instant',
      },
      ...(ca ? { ca } : {}),
      tapeFor: (slot, socket) => lanes.tapeFor(slot, socket),
      maxRequestBytes: start.maxRequestBytes,
      port: start.port,
    })
  } catch (error) {
    const failure = error as NodeJS.ErrnoException
    await send({ type: 'failed', code: failure.code, message: failure.message })
    process.exit(1)
  }
  process.on('message', async (message: { type?: string }) => {
    if (message?.type !== 'close') return
    await gateway.close()
    await lanes.writeReports()
    await send({ type: 'closed', notices: [...gateway.notices] })
    process.disconnect()
    process.exit(0)
  })
  // The parent gone (killed), the gateway goes too.
  process.on('disconnect', () => process.exit(0))
  await send({ type: 'listening', url: gateway.url, ...(caFile ? { caFile } : {}) })
}

void main()
