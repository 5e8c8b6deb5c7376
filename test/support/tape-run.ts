import {
  type CassetteStore,
  openTape,
  runWithTape,
  type Tape,
  type TapeOptions,
  type TapeState,
} from '@agent-tape/core'

export interface TapedRun<T> {
  result: T | undefined
  error: unknown
  state: TapeState
  failure: Error | undefined
  tape: Tape
}

/** Runs `fn` as a test body would: inside its tape's async context, then finishes the tape. */
export async function runTaped<T>(
  store: CassetteStore,
  cassettePath: string,
  mode: string,
  fn: () => Promise<T>,
  extra: Partial<TapeOptions> = {},
): Promise<TapedRun<T>> {
  const tape = await openTape({
    id: cassettePath,
    cassettePath,
    store,
    mode,
    env: {},
    rerecordCommand: 'rerecord',
    ...extra,
  })
  let result: T | undefined
  let error: unknown
  try {
    result = await runWithTape(tape, fn)
  } catch (e) {
    error = e
  }
  const state = await tape.finish()
  return { result, error, state, failure: tape.failure(), tape }
}
