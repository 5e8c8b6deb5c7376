import { openTape, runWithTape, type Tape, type TapeOptions } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { type Replier, startFakeProvider, type Turn } from '@agent-tape/fake-provider'
import { type HttpBoundary, installHttpBoundary } from '@agent-tape/http'
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
