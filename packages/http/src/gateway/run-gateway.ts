import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type ProcessSessionConfig, sessionFiles } from '../process/session.js'
import { GatewayLanes } from './lanes.js'
import { createRunCa, type RunCa } from './run-ca.js'
import { type GatewayNotice, startGateway } from './server.js'

/** What starts a gateway: its session, its routes' upstreams and its limits (JSON, for a process or a thread). */
export interface GatewayStart {
  /** The session folder of the command or of a tape's children (see `openProcessSession`). */
  dir: string
  /** The upstream of each route (see `upstreamsOf`). */
  upstreams: Record<string, string>
  maxRequestBytes: number
  port: number
  /** End HTTPS tunnels with a certificate authority made for the run (`--intercept-https`). */
  ca: boolean
}

/** What a gateway tells whoever started it. */
export type GatewayMessage =
  | { type: 'listening'; url: string; caFile?: string }
  | { type: 'failed'; code: string | undefined; message: string }
  | { type: 'closed'; notices: GatewayNotice[] }

export interface RunningGateway {
  readonly url: string
  readonly caFile: string | undefined
  /** Stops it, writes the report of each lane into the session, and says what it did not tape. */
  close(): Promise<GatewayNotice[]>
}

/**
 * Runs the gateway of a session in this process or thread (see `main.ts` and `worker.ts`, which
 * start it apart from any process with tapes of its own: its `fetch` upstream must be Node's
 * own), with the lanes of the places that send it requests, and the run's certificate authority
 * when asked for.
 */
export async function runGateway(start: GatewayStart, env: NodeJS.ProcessEnv): Promise<RunningGateway> {
  const config = JSON.parse(readFileSync(sessionFiles.config(start.dir), 'utf8')) as ProcessSessionConfig
  const lanes = new GatewayLanes(start.dir, config, env)
  let ca: RunCa | undefined
  let caFile: string | undefined
  if (start.ca) {
    ca = await createRunCa()
    // The certificate only (its key stays here), in the session folder removed with the run.
    caFile = join(start.dir, 'ca-bundle.pem')
    writeFileSync(caFile, ca.bundlePem)
  }
  const gateway = await startGateway({
    // A resumed run reaches the network as a recording does.
    mode: config.mode === 'resume' ? 'record' : config.mode,
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
  return {
    url: gateway.url,
    caFile,
    async close() {
      await gateway.close()
      await lanes.writeReports()
      return [...gateway.notices]
    },
  }
}
