import { AgentTapeError } from '@agent-tape/core/internal'
import { validateEndpointPattern } from '@agent-tape/http/process'

/** What `recordCommand` and `replayCommand` share. */
export interface CommandRunOptions {
  /**
   * The folder paths are resolved against and the project root is found from (default
   * `process.cwd()`): the top of its git checkout, or the folder itself outside one.
   */
  cwd?: string
  /** The command's environment (default `process.env`). */
  env?: Record<string, string | undefined>
  /**
   * Base URLs of model endpoints beyond the known provider hosts (a local gateway, a test
   * server), as `--model-endpoint` and `AGENT_TAPE_MODEL_ENDPOINTS` give them.
   */
  modelEndpoints?: readonly string[]
  /** Hosts the command may reach for real, neither recorded nor blocked (`--allow-host`). */
  allowHosts?: readonly string[]
  /** Values that only look like secrets (a test server's fake key), as `allowSecrets`. */
  allowSecrets?: readonly string[]
  /**
   * Where the command's output goes: the terminal (`inherit`, the default), nowhere (`ignore`),
   * or `onOutput` (`pipe`).
   */
  stdio?: 'inherit' | 'pipe' | 'ignore'
  /** Receives the command's output with `stdio: 'pipe'`. */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void
  /**
   * The port of the gateway that the command's processes outside Node reach (base URLs and the
   * proxy variables), as `--gateway-port` gives it; default a free one.
   */
  gatewayPort?: number
  /** The largest request body the gateway takes, in bytes (default 32 MiB); a larger one is refused and named. */
  maxRequestBytes?: number
  /**
   * Record and replay the HTTPS that processes outside Node send through the proxy variables, by
   * ending its TLS at the gateway with a certificate authority made for the run (`--intercept-https`).
   */
  interceptHttps?: boolean
  /**
   * Hosts (loopback ones too) whose requests are recorded and replayed as other HTTP: a local
   * server standing in for a real API (`--tape-host`).
   */
  tapeHosts?: readonly string[]
  /** How the project runs binaries (`npx`, `pnpm`, …), in the commands the reports print. */
  exec?: string
}

/** Refuses model endpoints that are not base URLs, before the command runs. */
export function assertEndpoints(patterns: readonly string[], command: string): void {
  for (const pattern of patterns) {
    const problem = validateEndpointPattern(pattern)
    if (!problem) continue
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Invalid model endpoint ${JSON.stringify(pattern)} for ${command}`,
      why: problem,
      fix: 'Give base URLs such as http://127.0.0.1:8080/v1 or http://localhost:*',
    })
  }
}

/** An exit status as a shell reports it: the exit code, or 128 + the number of the signal that ended it. */
export function shellStatus(exitCode: number | null, signal: string | null): number {
  if (exitCode !== null) return exitCode
  const numbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 }
  return 128 + (signal ? (numbers[signal] ?? 0) : 0)
}
