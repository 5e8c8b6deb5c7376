import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createCliIo, main, type TerminalSink } from '@agent-tape/cli'

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Where `runCli` writes by default: a pipe, as when a script or CI captures the output. */
const PIPE = { isTTY: false }

/**
 * Runs `agent-tape <args>` in this process, in `cwd`, with only `env` as its environment (no CI,
 * colour or secret variables inherited from the test runner), through the same `main` and
 * `createCliIo` the bin runs. `terminal` describes stdout (say `{ isTTY: true, columns: 80 }`);
 * by default it is a pipe. `runBin` (./bin.ts) spawns the built bin instead.
 */
export async function runCli(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
  terminal: Omit<TerminalSink, 'write'> = PIPE,
): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const io = createCliIo(
    {
      stdout: {
        ...terminal,
        write: (text: string) => {
          stdout += text
        },
      },
      stderr: {
        write: (text: string) => {
          stderr += text
        },
      },
    },
    { ...env },
    cwd,
  )
  const code = await main(args, io)
  return { code, stdout, stderr }
}

/** Masks what differs between two recordings of the same run: wall-clock times, dates and the Node version. */
export function maskRun(text: string): string {
  return (
    text
      .replace(/\b\d+ ms\b/g, '<n> ms')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
      .replace(/node v\d+\.\d+\.\d+ \(\w+\)/g, 'node <version>')
      // Env hashes are salted per cassette, so they differ on every recording.
      .replace(/sha256:[0-9a-f]{16}\b/g, 'sha256:<hash>')
  )
}

/** The tool calls of the answers `agent-tape view` draws for `cassette` (in `root`), as its page embeds them. */
export async function viewedToolCalls(root: string, cassette: string): Promise<unknown[]> {
  const page = join(root, `${cassette}.html`)
  const viewed = await runCli(['view', cassette, '-o', page], root)
  if (viewed.code !== 0)
    throw new Error(`agent-tape view ${cassette} exited ${viewed.code}: ${viewed.stderr}`)
  const json = /<script type="application\/json" id="agent-tape-data">([\s\S]*?)<\/script>/.exec(
    readFileSync(page, 'utf8'),
  )![1]!
  const { sides } = JSON.parse(json) as {
    sides: { cards: { model?: { answer?: { toolCalls: unknown[] } } }[] }[]
  }
  return sides[0]!.cards.flatMap((card) => card.model?.answer?.toolCalls ?? [])
}
