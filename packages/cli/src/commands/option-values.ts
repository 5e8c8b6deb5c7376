import { detectExec } from '@agent-tape/runner-kit'
import { type ParsedArgs, usageError } from '../args.js'
import type { CliIo } from '../command.js'
import type { CommandRunOptions } from '../recorded-command/options.js'

/** The string values of a repeatable option. */
export function strings(value: unknown): string[] {
  return (Array.isArray(value) ? value : []).filter((v): v is string => typeof v === 'string')
}

/**
 * Runs a record or replay; a command that cannot start is reported with the status a shell
 * gives it (127 not found, 126 not executable) rather than the usage status.
 */
export async function startOrExit<T>(io: CliIo, run: () => Promise<T>): Promise<T | number> {
  try {
    return await run()
  } catch (error) {
    const status = (error as { exitCode?: unknown }).exitCode
    if (error instanceof Error && typeof status === 'number') {
      io.stderr(`${error.message}\n`)
      return status
    }
    throw error
  }
}

/** The flags of the gateway that `record` and `replay` start for a command's processes outside Node. */
export const GATEWAY_FLAGS = {
  'gateway-port': {
    type: 'string',
    value: '<port>',
    description:
      "The port of the gateway for the command's processes outside Node (base URLs and the proxy variables); default a free one",
  },
  'max-request-bytes': {
    type: 'string',
    value: '<bytes>',
    description:
      'The largest request body the gateway takes (default 33554432, 32 MiB); a larger one is refused and named',
  },
  'intercept-https': {
    type: 'boolean',
    description:
      'Record and replay the HTTPS that processes outside Node send through the proxy variables, with a certificate authority made for this run (its certificate given through SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE and NODE_EXTRA_CA_CERTS, its key kept in memory)',
  },
  'tape-host': {
    type: 'string',
    multiple: true,
    value: '<host>',
    description:
      'A host whose requests are recorded and replayed as other HTTP, loopback ones too: a local server standing in for an API (repeatable)',
  },
} as const

/** The options `record` and `replay` share, from their flags and the CLI's terminal. */
export function commandRunOptions(
  values: ParsedArgs['values'],
  io: CliIo,
  command: string,
): CommandRunOptions {
  const port = integerFlag(values['gateway-port'], '--gateway-port', command, 1, 65_535)
  const maxRequestBytes = integerFlag(values['max-request-bytes'], '--max-request-bytes', command, 1)
  const tapeHosts = strings(values['tape-host'])
  return {
    ...(port === undefined ? {} : { gatewayPort: port }),
    ...(values['intercept-https'] === true ? { interceptHttps: true } : {}),
    ...(tapeHosts.length > 0 ? { tapeHosts } : {}),
    ...(maxRequestBytes === undefined ? {} : { maxRequestBytes }),
    cwd: io.cwd,
    env: io.env,
    modelEndpoints: strings(values['model-endpoint']),
    allowHosts: strings(values['allow-host']),
    allowSecrets: strings(values['allow-secret']),
    stdio: io.commandStdio ?? 'inherit',
    ...(io.commandOutput ? { onOutput: io.commandOutput } : {}),
    exec: detectExec(io.env.npm_config_user_agent),
  }
}

/** A flag's value as a whole number from `min` to `max`, or a usage error that says what was given. */
function integerFlag(
  value: unknown,
  flag: string,
  command: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (typeof value !== 'string') return undefined
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (Number.isSafeInteger(n) && n >= min && n <= max) return n
  throw usageError(
    command,
    `${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
  )
}

/**
 * Runs a record or replay and says how it went: its report on stderr, its status as the CLI's;
 * a command that cannot start exits with the status a shell gives it.
 */
export async function reportCommandRun(
  io: CliIo,
  run: () => Promise<{ report: string; status: number }>,
): Promise<number> {
  const result = await startOrExit(io, run)
  if (typeof result === 'number') return result
  io.stderr(`${result.report}\n`)
  return result.status
}
