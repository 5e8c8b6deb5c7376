import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import {
  AgentTapeError,
  type Cassette,
  createMemoryStore,
  serializeCassette,
} from '@agent-tape/core/internal'
import { binCommand, CLI_BIN, quoteShell } from '@agent-tape/runner-kit'
import { displayPath } from '../cassette-files.js'
import { redactArgv } from './command-line.js'
import { runCommand } from './command-run.js'
import { assertMayRecord, withoutMode } from './record.js'
import { type RecordCommandResult, recordVerdict } from './record-verdict.js'
import { planReplay, type ReplayCommandOptions } from './replay.js'

export interface ResumeCommandOptions extends Omit<ReplayCommandOptions, 'mode'> {
  /** How many decisions of the cassette to replay, from its first: the run goes live after them. */
  from: number
  /** Where the new recording is written (default beside the cassette, see {@link resumedPath}). */
  out?: string
  /** The model every live model request is sent to instead of its own (the codec knows where it is named). */
  liveModel?: string
  /** Record although `CI` is set (as `AGENT_TAPE_ALLOW_CI_RECORDING=1` does). */
  allowCi?: boolean
}

/**
 * Runs a recorded command (or `options.argv`) with its processes replaying the first
 * `options.from` decisions of the cassette while they match, then live from there, recording the
 * whole run to a new file: the replayed decisions kept as recorded, the rest as they happen now.
 * "What would the fixed prompt, or another model, do from here", without paying for the steps
 * before it. The cassette is never written. Recording is refused in CI, as `record` refuses it.
 *
 * @example
 * const { written, report } = await resumeCommand('runs/issue-412.jsonl', { from: 3, liveModel: candidate })
 */
export async function resumeCommand(
  cassettePath: string,
  options: ResumeCommandOptions,
): Promise<RecordCommandResult> {
  const cwd = options.cwd ?? process.cwd()
  const env = options.env ?? process.env
  assertMayRecord(env, options.allowCi === true)
  const original = resolve(cwd, cassettePath)
  const out = resolve(cwd, options.out ?? resumedPath(original, options.from))
  const shown = displayPath(out, cwd)
  if (out === original) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Cannot write the resumed run to ${shown}`,
      why: 'it is the cassette the run replays from, which agent-tape replay never changes',
      fix: 'Name another file with --out, or leave --out out for one beside it',
    })
  }
  // A replay's plan (its command, folder, endpoints), whose processes record from the first miss.
  const { run, verdict } = await planReplay(cassettePath, options, { mayRecord: true })
  const prefix = firstDecisions(verdict.cassette, options.from, verdict.shown)
  const folder = await mkdtemp(join(tmpdir(), 'agent-tape-resume-'))
  try {
    const cassetteFile = join(folder, 'prefix.jsonl')
    await writeFile(cassetteFile, serializeCassette(prefix))
    const exec = options.exec ?? 'npx'
    const allowSecrets = [...(options.allowSecrets ?? [])]
    const line = redactArgv(run.argv, env, allowSecrets)
    const recorded = await runCommand({
      ...run,
      mode: 'resume',
      id: basename(out).replace(/\.jsonl$/, ''),
      shown,
      cassetteFile,
      ...(options.liveModel ? { liveModel: options.liveModel } : {}),
      envTape: {
        store: createMemoryStore(),
        mode: 'update',
        env: withoutMode(run.env),
        allowRecordingInCI: true,
        allowSecrets,
      },
    })
    return await recordVerdict(recorded, {
      file: out,
      shown,
      id: basename(out).replace(/\.jsonl$/, ''),
      line,
      cwd: run.cwd,
      root: verdict.root,
      env,
      exec,
      modelEndpoints: run.modelEndpoints,
      allowSecrets,
      harness: harnessPaths(verdict.cassette),
      resumedFrom: verdict.shown,
    })
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

/** Where a resumed run is written when `--out` is not given: `<name>.from-<n>.jsonl` beside the cassette. */
export function resumedPath(cassette: string, from: number): string {
  return join(dirname(cassette), `${basename(cassette).replace(/\.jsonl$/, '')}.from-${from}.jsonl`)
}

/** The first `from` decisions of a cassette, under its header; refuses a count it does not hold. */
function firstDecisions(cassette: Cassette, from: number, shown: string): Cassette {
  const total = cassette.decisions.length
  if (from >= total) {
    throw new AgentTapeError('ERR_TAPE_USAGE', {
      what: `Invalid arguments for agent-tape replay: --from ${from} is beyond the decisions of ${shown}`,
      why: `it holds ${total} decision${total === 1 ? '' : 's'}, so --from takes 1 to ${total - 1} (the decisions replayed before the run goes live)`,
      fix: `Give a smaller --from, or replay the whole run: ${binCommand(CLI_BIN, `replay ${quoteShell(shown)}`)}`,
    })
  }
  return { header: cassette.header, decisions: cassette.decisions.slice(0, from) }
}

/** The paths the recording's harness fingerprinted, fingerprinted again for the new one. */
function harnessPaths(cassette: Cassette): string[] {
  const harness = cassette.header.harness
  return harness?.git ? harness.paths : []
}
