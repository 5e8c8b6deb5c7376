import type { Cassette } from './cassette-format.js'
import { parseCassette } from './cassette-format.js'
import { AgentTapeError, isAgentTapeError } from './errors.js'
import { validateIgnoreRules } from './ignore-paths.js'
import { describeCi, resolveMode, type TapeMode } from './modes.js'
import { validateNormalizers } from './normalize.js'
import { validateRedactors } from './redaction.js'
import { Tape } from './tape.js'
import { prepareTapeOpen } from './tape-context.js'
import type { TapeOptions } from './tape-options.js'
import type { PartContext, TapePart } from './tape-part.js'
import { PassthroughPart } from './tape-passthrough.js'
import { RecordingPart } from './tape-recording.js'
import { ReplayPart } from './tape-replay.js'
import { ResumePart } from './tape-resume.js'

/**
 * Opens the tape of one test: resolves the mode, loads and validates the cassette, and reads
 * the harness identity. Throws when the cassette is damaged, or missing in `replay` mode.
 */
export async function openTape(options: TapeOptions): Promise<Tape> {
  const env = options.env ?? process.env
  validateRedactors(options.redactors ?? [])
  validateNormalizers(options.normalizers ?? [])
  validateIgnoreRules(options.ignore ?? [])
  const { mode, ci } = resolveMode({
    mode: options.mode,
    env,
    ...(options.allowRecordingInCI !== undefined ? { allowRecordingInCI: options.allowRecordingInCI } : {}),
  })
  // The boundaries installed in this process load what serving a tape takes.
  await prepareTapeOpen()
  let existing: Cassette | undefined
  if (mode !== 'live') {
    const text = await options.store.read(options.cassettePath)
    if (text !== null) {
      try {
        existing = parseCassette(text, options.cassettePath)
      } catch (error) {
        // Re-recording replaces a damaged file; every other mode must report it.
        if (mode !== 'update' || !isAgentTapeError(error)) throw error
      }
    }
  }
  if ((mode === 'replay' || mode === 'live-tools') && !existing) {
    throw new AgentTapeError('ERR_TAPE_NO_CASSETTE', {
      what: `No cassette for test "${options.id}"`,
      why: `${options.cassettePath} does not exist, and mode "${mode}"${ci ? ` (${describeCi(env)})` : ''} never records`,
      fix: 'Run the test locally without CI to record it (mode "auto" records missing cassettes), then commit the file',
    })
  }
  const harness = options.harness
    ? await options.harness.provider.identify(options.harness.paths ?? [])
    : undefined
  return new Tape(options, { mode, part: partFor(mode, existing), harness, env })
}

/**
 * Opens a tape that records a new cassette, at once: no store is read (nothing is replayed or
 * compared with an earlier recording), no harness is read, and the mode is `update` whatever
 * the environment says. For a run recorded where it happens (a run captured in a server), whose
 * code must start in the same tick as it would without a tape. The boundaries load what they
 * need with their first request; awaiting `prepareTapeOpen()` once beforehand loads it ahead.
 */
export function openRecordingTape(
  options: Omit<TapeOptions, 'mode' | 'harness' | 'allowRecordingInCI'>,
): Tape {
  validateRedactors(options.redactors ?? [])
  validateNormalizers(options.normalizers ?? [])
  return new Tape(options, {
    mode: 'update',
    part: (context) => new RecordingPart(undefined, context),
    harness: undefined,
    env: options.env ?? process.env,
  })
}

/**
 * The part of the action of this run, chosen once: `live` passes through, `update` records,
 * `resume` replays the cassette until the run leaves it and records from there, and the other
 * modes replay the cassette. A missing cassette is recorded (in `auto` and `resume`; the other
 * modes refused it above).
 */
function partFor(mode: TapeMode, existing: Cassette | undefined): (context: PartContext) => TapePart {
  if (mode === 'live') return (context) => new PassthroughPart(context)
  if (mode === 'update' || !existing) return (context) => new RecordingPart(existing, context)
  if (mode === 'resume') return (context) => new ResumePart(existing, context)
  return (context) => new ReplayPart(existing, context)
}
