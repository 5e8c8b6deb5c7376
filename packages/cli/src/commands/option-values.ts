import type { CliIo } from '../command.js'

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
