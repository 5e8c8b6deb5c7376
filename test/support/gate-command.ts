import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCliIo, main } from '@agent-tape/cli'
import { parseCassette } from '@agent-tape/core'
import { startFakeProvider } from '@agent-tape/fake-provider'
import { type GateItem, textOf } from './gate-items.js'
import type { Outcome, SurfaceGroup } from './gate-tape.js'

/** What the recorded command does: one model request, the decision to write. */
const SCRIPT = `fetch(process.env.GATE_URL + '/chat/completions', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
}).then((r) => r.text())`
/** Before each value, so that one that reads as an option does not take the next as its value. */
const BETWEEN = 'then'

const COMMAND_LINE = 'a recorded command line'
const REPORT = 'the report of agent-tape record'

/**
 * `agent-tape record -- node -e <script> then <value> then <value> …`: the command line is kept in the
 * cassette's header, each credential in it a placeholder; the report names the placeholders.
 * A refused write (a secret the command line kept) names the arguments it holds secrets in:
 * each is recorded again alone, and the others together, so that each is counted for what it did.
 */
async function throughCommandLine(
  items: readonly GateItem[],
  env: Record<string, string>,
  suspects: ReadonlySet<GateItem>,
): Promise<Record<string, Outcome[]>> {
  const provider = await startFakeProvider({ reply: () => ({ text: 'ok' }) })
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-gate-command-'))
  const runEnv = { ...env, GATE_URL: provider.openaiBaseURL }
  try {
    // The suspects are recorded apart, so that a refusal of one does not record the rest again.
    const apart = items.filter((item) => suspects.has(item))
    const rest = items.filter((item) => !suspects.has(item))
    const outcomes: Record<string, Outcome[]> = {
      [COMMAND_LINE]: new Array<Outcome>(items.length),
      [REPORT]: new Array<Outcome>(items.length),
    }
    for (const part of [rest, apart].filter((p) => p.length > 0)) {
      const recorded = await recordOver(part, runEnv, dir)
      for (const [name, list] of Object.entries(recorded))
        part.forEach((item, i) => {
          outcomes[name]![items.indexOf(item)] = list[i]!
        })
    }
    return outcomes
  } finally {
    await provider.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function recordOver(
  items: readonly GateItem[],
  env: Record<string, string>,
  dir: string,
): Promise<Record<string, Outcome[]>> {
  // Node reads what follows the script as its own options up to the first word.
  const args = items.flatMap((item) => [BETWEEN, textOf(item)])
  const argv = [process.execPath, '-e', SCRIPT, ...args]
  const file = join(dir, 'run.jsonl')
  let report = ''
  const io = createCliIo(
    {
      stdout: { isTTY: false, write: () => undefined },
      stderr: { write: (text: string) => (report += text) },
    },
    { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    dir,
  )
  io.commandStdio = 'pipe'
  io.commandOutput = () => undefined
  const code = await main(
    ['record', '--force', '--model-endpoint', env.GATE_URL!, 'run.jsonl', '--', ...argv],
    io,
  )
  const written = code === 0 && existsSync(file) ? readFileSync(file, 'utf8') : undefined
  if (written === undefined && !/Refusing to write|secret/i.test(report))
    throw new Error(`agent-tape record failed (${code}): ${report}`)
  if (written === undefined && items.length > 1) {
    // The refusal names the arguments it found secrets in; the others are recorded again without them.
    const named = new Set([...report.matchAll(/source\.argv\[(\d+)\]/g)].map((m) => (Number(m[1]) - 4) / 2))
    const refused = items.filter((_, i) => named.has(i))
    if (refused.length === 0) throw new Error(`agent-tape record refused none of its arguments: ${report}`)
    const rest = await recordOver(
      items.filter((_, i) => !named.has(i)),
      env,
      dir,
    )
    const alone: Record<string, Outcome[]>[] = []
    for (const item of refused) alone.push(await recordOver([item], env, dir))
    const merged = (name: string) => {
      const restOf = [...rest[name]!]
      const aloneOf = alone.map((a) => a[name]![0]!)
      return items.map((_, i) => (named.has(i) ? aloneOf.shift()! : restOf.shift()!))
    }
    return { [COMMAND_LINE]: merged(COMMAND_LINE), [REPORT]: merged(REPORT) }
  }
  const kept = written === undefined ? undefined : parseCassette(written, file).header.source
  const keptArgv = kept?.kind === 'command' ? kept.argv : []
  return {
    [COMMAND_LINE]: items.map((item, i) => {
      if (written === undefined) return { written: [], printed: [], refused: report.trim() }
      const outcome: Outcome = { written: item.written(written), printed: [] }
      const stored = keptArgv[4 + 2 * i]
      if (item.kind === 'ordinary' && stored !== textOf(item))
        outcome.redacted = `argument ${4 + 2 * i} kept as ${JSON.stringify(stored).slice(0, 120)}`
      return outcome
    }),
    [REPORT]: items.map((item) => ({ written: [], printed: item.printed(report) })),
  }
}

export const COMMAND_SURFACES: SurfaceGroup = {
  surfaces: [
    { name: COMMAND_LINE, secret: 'redacted' },
    { name: REPORT, secret: 'masked' },
  ],
  run: throughCommandLine,
}
