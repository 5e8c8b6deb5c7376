import type { CliIo } from './command.js'
import { type ColorTarget, createStyle, shouldColor } from './output/style.js'

/** Where the CLI writes: a process's stdout or stderr, or anything that collects text. */
export interface TextSink {
  write(text: string): unknown
}

/** A stdout: where to write, whether it is a terminal that takes colour, and how wide it is. */
export interface TerminalSink extends TextSink, ColorTarget {
  columns?: number
}

/**
 * The `CliIo` of a process: writes go to its streams, and colour and width are read from its stdout
 * as `shouldColor` decides (a terminal gets both, a pipe neither). The bin passes `process`; a
 * test passes collecting sinks and says whether its stdout is a terminal.
 *
 * @example
 * const code = await main(process.argv.slice(2), createCliIo(process, process.env, process.cwd()))
 */
export function createCliIo(
  streams: { stdout: TerminalSink; stderr: TextSink },
  env: Record<string, string | undefined>,
  cwd: string,
): CliIo {
  const { stdout, stderr } = streams
  return {
    stdout: (text) => {
      stdout.write(text)
    },
    stderr: (text) => {
      stderr.write(text)
    },
    env,
    cwd,
    style: createStyle(shouldColor(stdout, env)),
    ...(stdout.isTTY && stdout.columns ? { columns: stdout.columns } : {}),
  }
}
