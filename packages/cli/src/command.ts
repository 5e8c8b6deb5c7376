import type { CommandSpec, ParsedArgs } from './args.js'
import type { Style } from './output/style.js'

/** Where a command writes and what it runs against; the bin passes the process's, tests their own. */
export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  env: Record<string, string | undefined>
  cwd: string
  /** Styling for stdout (plain when piped, see `shouldColor`). */
  style: Style
  /** The terminal's width when stdout is one; long lines are wrapped to it. None in a pipe. */
  columns?: number
  /**
   * Where a command run by `record` and `replay` writes: this process's own streams (`inherit`,
   * the default, as the bin runs), or `commandOutput` (`pipe`, as tests collect it).
   */
  commandStdio?: 'inherit' | 'pipe' | 'ignore'
  commandOutput?(stream: 'stdout' | 'stderr', text: string): void
}

export interface Command {
  spec: CommandSpec
  /** Runs the command and returns its exit code. */
  run(args: ParsedArgs, io: CliIo): Promise<number>
}
