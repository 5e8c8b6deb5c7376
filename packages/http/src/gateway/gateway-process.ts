import { type ChildProcess, fork } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { AgentTapeError } from '@agent-tape/core/internal'
import { packageFolder } from '../package-folder.js'
import { type GatewayAddress, PROXY_VARIABLES, replacedVariables } from './address.js'
import { upstreamsOf } from './routes.js'
import type { GatewayMessage, GatewayStart } from './run-gateway.js'
import type { GatewayNotice } from './server.js'

/** The largest request body the gateway takes by default: 32 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024

export interface GatewayProcessOptions {
  /** The session folder of the command. */
  dir: string
  mode: 'record' | 'replay' | 'live-tools'
  /** The command's environment: what the routes' upstreams are read from, and the secrets its recordings are scanned for. */
  env: Record<string, string | undefined>
  /** The upstreams a recording used, taken again on replay before the environment's. */
  upstreams?: Record<string, string>
  /** The port to listen on (default: a free one). */
  port?: number
  maxRequestBytes?: number
  /** End HTTPS tunnels through the proxy with a certificate authority made for the run, and tape them. */
  interceptHttps?: boolean
}

export interface GatewayProcess {
  readonly address: GatewayAddress
  /** The upstream of each route, as a cassette keeps them. */
  readonly upstreams: Record<string, string>
  /** Stops the gateway once the command ended; resolves to what it did not tape, its lanes' reports written. */
  close(): Promise<GatewayNotice[]>
}

/**
 * Starts the gateway of a command in a Node process of its own (see `main.ts`), and resolves
 * once it listens. A port in use, or a gateway that cannot start, is an error that says so
 * before the command runs.
 */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const start = gatewayStart(options)
  const { NODE_OPTIONS: _options, ...env } = options.env
  const child = fork(entryFile(), [JSON.stringify(start)], {
    env,
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  const { url, caFile } = await listening(child, start.port)
  return {
    address: gatewayAddress(options, start, url, caFile),
    upstreams: start.upstreams,
    close: () => closed(child),
  }
}

/** What a gateway is started with, from the options of its starter. */
export function gatewayStart(options: GatewayProcessOptions): GatewayStart {
  return {
    dir: options.dir,
    upstreams: { ...upstreamsOf(options.env), ...options.upstreams },
    maxRequestBytes: options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    port: options.port ?? 0,
    ca: options.interceptHttps === true,
  }
}

/** Where a gateway that listens at `url` is, and what it stands in for, for the processes it serves. */
export function gatewayAddress(
  options: GatewayProcessOptions,
  start: GatewayStart,
  url: string,
  caFile: string | undefined,
): GatewayAddress {
  // A recording behind a proxy of the user's own keeps it: then only the base URLs name the gateway.
  const proxy = options.mode !== 'record' || !PROXY_VARIABLES.some((name) => options.env[name])
  const routes = Object.keys(start.upstreams)
  return {
    url,
    proxy,
    routes,
    ...(caFile ? { caFile } : {}),
    replaced: replacedVariables(options.env, routes, proxy, caFile !== undefined),
  }
}

function entryFile(): string {
  const file = join(packageFolder(), 'dist', 'esm', 'gateway', 'main.js')
  if (!existsSync(file)) throw new Error(`the gateway entry of @agent-tape/http is missing at ${file}`)
  return file
}

function listening(child: ChildProcess, port: number): Promise<{ url: string; caFile?: string | undefined }> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`the gateway's process ended before it listened (exit code ${code})`))
    child.once('exit', onExit)
    child.once('message', (message: GatewayMessage) => {
      child.removeListener('exit', onExit)
      if (message.type === 'listening') resolve({ url: message.url, caFile: message.caFile })
      else if (message.type === 'failed') reject(cannotListen(message, port))
    })
  })
}

function cannotListen(message: { code: string | undefined; message: string }, port: number): AgentTapeError {
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Cannot start the gateway on 127.0.0.1:${port}`,
    why:
      message.code === 'EADDRINUSE'
        ? `the port is in use by another program (${message.message})`
        : message.message,
    fix:
      message.code === 'EADDRINUSE'
        ? 'Choose another port with --gateway-port, or leave it out to take a free one; the command was not run'
        : 'The command was not run',
  })
}

function closed(child: ChildProcess): Promise<GatewayNotice[]> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || !child.connected) {
      resolve([
        {
          request: "the gateway's process",
          why: 'it ended before the command did: its lanes were not reported',
        },
      ])
      return
    }
    let notices: GatewayNotice[] = []
    child.on('message', (message: GatewayMessage) => {
      if (message.type === 'closed') notices = message.notices
    })
    child.once('exit', () => resolve(notices))
    child.send({ type: 'close' })
  })
}
