import { detectExec } from '@agent-tape/runner-kit'
import type { ParsedArgs } from '../args.js'
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

/** The options `record` and `replay` share, from their flags and the CLI's terminal. */
export function commandRunOptions(values: ParsedArgs['values'], io: CliIo): CommandRunOptions {
  return {
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
