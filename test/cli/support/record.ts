import { openTape, runWithTape, type Tape, type TapeOptions } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { type Replier, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { type HttpBoundary, installHttpBoundary } from '@agent-tape/http'
import { openTestTape, type TapeSummaryEntry } from '@agent-tape/runner-kit'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'

let boundary: HttpBoundary | undefined

export interface Clients {
  openai: OpenAI
  anthropic: Anthropic
  tape: Tape
}

export interface RecordOptions {
  /** The fake model's answers: a function of the request, or one turn per model request. */
  reply: Replier | readonly Turn[]
  /** The agent run, given real SDK clients pointed at the fake provider and the tape. */
  run: (clients: Clients) => Promise<unknown>
  seed?: string
  tape?: Partial<TapeOptions>
}

/**
 * Records one run into `<root>/<cassettePath>` the way a test runner integration does: the real
 * SDKs talk to a loopback provider through the http boundary, and the cassette is written by
 * the file store. Returns the cassette text.
 */
export async function recordCassette(root: string, cassettePath: string, options: RecordOptions) {
  boundary ??= installHttpBoundary()
  const provider = await startFakeProvider({ reply: options.reply, seed: options.seed ?? cassettePath })
  boundary.addModelEndpoints(provider.url)
  try {
    const store = createFileStore(root)
    const tape = await openTape({
      id: cassettePath,
      cassettePath,
      store,
      mode: 'update',
      env: {},
      ...options.tape,
    })
    const clients: Clients = {
      tape,
      openai: new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 }),
      anthropic: new Anthropic({ apiKey: 'test-dummy', baseURL: provider.anthropicBaseURL, maxRetries: 0 }),
    }
    await runWithTape(tape, () => options.run(clients))
    await tape.finish()
    const text = await store.read(cassettePath)
    if (text === null) throw new Error(`no cassette was written at ${cassettePath}`)
    return text
  } finally {
    await provider.close()
  }
}

export interface DivergedRun {
  /** The miss report, with the command that opens the view. */
  message: string
  /** The kept run, relative to the root. */
  run: string
}

/**
 * Replays `<root>/<cassettePath>` as a test runner does (the runner kit's `openTestTape`, in
 * replay mode) with a run that asks for other decisions: a real replay miss, after which the
 * runner kit keeps the diverged run. The provider is never reached.
 */
export async function replayDiverging(
  root: string,
  test: { file: string; name: string },
  run: (clients: Clients) => Promise<unknown>,
  env: Record<string, string> = {},
): Promise<DivergedRun> {
  boundary ??= installHttpBoundary()
  let entry: TapeSummaryEntry | undefined
  const { tape, finish } = await openTestTape({
    runner: 'vitest',
    exec: 'npx',
    testFile: test.file,
    names: [test.name],
    name: test.name,
    root,
    config: {
      cassetteDir: '__cassettes__',
      mode: 'replay',
      allowRecordingInCI: false,
      strictHarness: false,
      failOnUnused: true,
      redactors: [],
      normalizers: [],
      ignore: [],
      allowSecrets: [],
    },
    runtime: {},
    env,
    report: (e) => {
      entry = e
    },
  })
  // Where the recording's provider was: a closed port the boundary answers for.
  const base = 'http://127.0.0.1:9'
  boundary.addModelEndpoints(base)
  const clients: Clients = {
    tape,
    openai: new OpenAI({ apiKey: 'sk-test-dummy', baseURL: `${base}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: 'test-dummy', baseURL: base, maxRetries: 0 }),
  }
  await runWithTape(tape, () => run(clients)).catch(() => {})
  const failure = await finish()
  if (!failure || !entry?.run) throw new Error(`the replay did not diverge: ${JSON.stringify(entry)}`)
  return { message: failure.message, run: entry.run }
}
