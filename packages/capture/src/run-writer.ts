import { isAgentTapeError, isSecretLeakError, MESSAGE_PREFIX } from '@agent-tape/core/internal'
import { CaptureDrop } from './capture-stats.js'
import type { CapturedFile } from './options.js'
import type { CaptureContext } from './recorded-run.js'

/** What the writer needs to know of a kept run. */
export interface KeptRun {
  name: string
  id: string
  fileName: string
  failed: boolean
}

/**
 * Writes a kept run's cassette to the capture's directory or sink, or throws the
 * {@link CaptureDrop} that says why it cannot: part of it went unrecorded (`failure`), it is
 * larger than `maxBytes`, the directory or the sink failed.
 */
export async function writeRunFile(
  context: CaptureContext,
  run: KeptRun,
  text: string,
  failure: Error | undefined,
): Promise<void> {
  const what = `Dropped captured run ${run.name} (${run.id})`
  if (failure) {
    throw new CaptureDrop('incomplete', {
      what,
      why: `part of it could not be recorded, and went out unrecorded: ${causeOf(failure)}`,
      fix: 'Nothing the run did was changed; if this keeps happening, report it with this message',
    })
  }
  const { options, directory } = context
  const bytes = Buffer.byteLength(text)
  if (bytes > options.maxBytes) {
    throw new CaptureDrop('max-bytes', {
      what,
      why: `its cassette is ${bytes} bytes, more than maxBytes (${options.maxBytes})`,
      fix: 'Raise maxBytes if runs this large are worth keeping',
    })
  }
  if (directory) {
    try {
      await directory.write(run.fileName, text)
    } catch (error) {
      throw new CaptureDrop('write-error', {
        what,
        why: `${directory.fileOf(run.fileName)} cannot be written (${causeOf(error)})`,
        fix: `Make ${directory.path} writable by this process, with room on its disk, or pass a sink`,
      })
    }
    return
  }
  const file: CapturedFile = {
    name: run.fileName,
    text,
    runId: run.id,
    runName: run.name,
    failed: run.failed,
  }
  try {
    await (options.target as { sink: (file: CapturedFile) => unknown }).sink(file)
  } catch (error) {
    throw new CaptureDrop('sink-error', {
      what,
      why: `the sink threw: ${causeOf(error)}`,
      fix: 'Make the sink handle its own failures (retry, or keep the file elsewhere)',
    })
  }
}

/** Why a kept run could not be written, as the reason it is dropped for. */
export function dropFor(error: unknown, run: { name: string; id: string }): CaptureDrop {
  if (error instanceof CaptureDrop) return error
  const what = `Dropped captured run ${run.name} (${run.id})`
  if (isSecretLeakError(error)) {
    return new CaptureDrop('secret', {
      what,
      why: causeOf(error),
      fix: 'Nothing was written. Keep secrets out of what the agent reads and returns, or redact them with redactors; a value that only looks like a secret goes in allowSecrets',
    })
  }
  if (isAgentTapeError(error) && error.code === 'ERR_TAPE_USAGE') {
    return new CaptureDrop('incomplete', {
      what,
      why: causeOf(error),
      fix: 'Read every answer to its end inside the run, or cancel it',
    })
  }
  return new CaptureDrop('internal', {
    what,
    why: error instanceof Error ? (error.stack ?? error.message) : String(error),
    fix: 'This is a bug in agent-tape: please report it with this message',
  })
}

/** An error's message without agent-tape's prefix, to be quoted inside another message. */
function causeOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.startsWith(`${MESSAGE_PREFIX} `) ? message.slice(MESSAGE_PREFIX.length + 1) : message
}
