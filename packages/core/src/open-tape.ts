import type { Cassette } from './cassette-format.js'
import { parseCassette } from './cassette-format.js'
import { AgentTapeError, isAgentTapeError } from './errors.js'
import { describeCi, resolveMode } from './modes.js'
import { validateNormalizers } from './normalize.js'
import { validateRedactors } from './redaction.js'
import { Tape } from './tape.js'
import type { TapeOptions } from './tape-options.js'
import type { TapeAction } from './tape-state.js'

/**
 * Opens the tape of one test: resolves the mode, loads and validates the cassette, and reads
 * the harness identity. Throws when the cassette is damaged, or missing in `replay` mode.
 */
export async function openTape(options: TapeOptions): Promise<Tape> {
  const env = options.env ?? process.env
  validateRedactors(options.redactors ?? [])
  validateNormalizers(options.normalizers ?? [])
  const { mode, ci } = resolveMode({
    mode: options.mode,
    env,
    ...(options.allowRecordingInCI !== undefined ? { allowRecordingInCI: options.allowRecordingInCI } : {}),
  })
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
  const action: TapeAction =
    mode === 'live'
      ? 'passthrough'
      : mode === 'update' || (mode === 'auto' && !existing)
        ? 'record'
        : 'replay'
  const harness = options.harness
    ? await options.harness.provider.identify(options.harness.paths ?? [])
    : undefined
  return new Tape(options, { mode, action, existing, harness, env })
}
