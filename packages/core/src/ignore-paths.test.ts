import { describe, expect, it } from 'vitest'
import { computeKey } from './canonical-key.js'
import { parseCassette } from './cassette-format.js'
import { createMemoryStore } from './cassette-store.js'
import { isAgentTapeError } from './errors.js'
import { IGNORED_ITEM, IgnorePaths } from './ignore-paths.js'
import { openTape } from './open-tape.js'
import { tapeInternals } from './tape-internals.js'
import type { TapeOptions } from './tape-options.js'

const PATH = '__cassettes__/t.jsonl'

function setup() {
  const store = createMemoryStore()
  const open = (mode: string, extra: Partial<TapeOptions> = {}) =>
    openTape({ id: 't', cassettePath: PATH, store, mode, env: {}, ...extra })
  return { store, open }
}

const request = (id: string, question = 'Weather in Paris?') => ({
  api: 'chat',
  body: { model: 'm', messages: [{ role: 'user', content: question }], metadata: { request_id: id } },
})

describe('ignore paths', () => {
  it('leave out object fields, array items by index or *, and keys under *', () => {
    const input = {
      body: {
        user: 'u-1',
        messages: [
          { id: 'a', text: 'x' },
          { id: 'b', text: 'y' },
        ],
        tags: ['t1', 't2'],
        nested: { one: { trace: 1, keep: true }, two: { trace: 2 } },
      },
    }
    const ignores = new IgnorePaths(['body.user', 'body.messages.*.id', 'body.tags.1', 'body.nested.*.trace'])
    const { input: out, matched } = ignores.apply('llm', input)
    expect(out).toEqual({
      body: {
        messages: [{ text: 'x' }, { text: 'y' }],
        tags: ['t1', IGNORED_ITEM],
        nested: { one: { keep: true }, two: {} },
      },
    })
    expect(matched).toEqual(['body.user', 'body.messages.*.id', 'body.tags.1', 'body.nested.*.trace'])
    // The input itself is untouched: a recording stores it whole.
    expect(input.body.user).toBe('u-1')
  })

  it('return the same object when nothing matches, and skip rules for other kinds', () => {
    const input = { body: { messages: [] } }
    const ignores = new IgnorePaths(['body.user', { path: 'body', kinds: ['tool'] }])
    expect(ignores.apply('llm', input)).toEqual({ input, matched: [] })
    expect(ignores.apply('llm', input).input).toBe(input)
    expect(ignores.apply('tool', input).input).toEqual({})
  })

  it('refuse a path with an empty segment, naming the rule', async () => {
    const { open } = setup()
    const error = await open('auto', { ignore: ['body..id'] }).catch((e: unknown) => e)
    expect(isAgentTapeError(error) && error.code).toBe('ERR_TAPE_CONFIG')
    expect(String((error as Error).message)).toContain(
      'Invalid ignore rule #1 "body..id": a path segment is empty',
    )
  })

  it('let a per-request id replay across runs, store it, count it, and write no fingerprints', async () => {
    const { store, open } = setup()
    const recording = await open('auto', { ignore: ['body.metadata.request_id'] })
    const beganRecording = tapeInternals(recording).beginRequest({
      kind: 'llm',
      head: 'h',
      body: new TextEncoder().encode('first'),
      decide: () => ({ kind: 'llm', input: request('req-1') }),
    })
    if (beganRecording.action !== 'record') throw new Error('expected a recording')
    beganRecording.complete({ out: 'sunny' }, 3)
    const state = await recording.finish()
    expect(state.ignored).toEqual({ 'body.metadata.request_id': 1 })
    const cassette = parseCassette(store.files[PATH]!, PATH)
    expect(cassette.header.ignore).toEqual(['body.metadata.request_id'])
    expect(cassette.decisions[0]!.in).toEqual(request('req-1'))
    expect(cassette.decisions[0]!.wire).toBeUndefined()
    // The key is the key of the input without the field.
    const body = { ...request('req-1').body, metadata: {} }
    expect(cassette.decisions[0]!.key).toBe(computeKey('llm', { api: 'chat', body }, { step: 1 }))

    const replay = await open('replay', { ignore: ['body.metadata.request_id'] })
    const answer = await replay.call('llm', request('req-2'), () => 'live')
    expect(answer).toBe('sunny')
    const replayed = await replay.finish()
    expect(replayed.status).toBe('clean')
    expect(replayed.ignored).toEqual({ 'body.metadata.request_id': 1 })
  })

  it('miss without the ignore, the diff naming the path; with it, leave it out of the diff of another change', async () => {
    const { open } = setup()
    const recording = await open('auto', { ignore: ['body.metadata.request_id'] })
    await recording.call('llm', request('req-1'), () => 'sunny')
    await recording.finish()

    const without = await open('replay')
    await expect(without.call('llm', request('req-2'), () => 'live')).rejects.toThrow(
      'body.metadata.request_id: "req-1" → "req-2"',
    )

    const other = await open('replay', { ignore: ['body.metadata.request_id'] })
    const miss = await other.call('llm', request('req-3', 'Weather in Oslo?'), () => 'live').catch((e) => e)
    expect(String(miss.message)).toContain(
      'body.messages[0].content: "Weather in Paris?" → "Weather in Oslo?"',
    )
    expect(String(miss.message)).not.toContain('request_id')
  })

  it('leave the keys and fingerprints of a tape without ignores as they were', async () => {
    const { store, open } = setup()
    const tape = await open('auto')
    const begun = tapeInternals(tape).beginRequest({
      kind: 'llm',
      head: 'h',
      body: new TextEncoder().encode('first'),
      decide: () => ({ kind: 'llm', input: request('req-1') }),
    })
    if (begun.action !== 'record') throw new Error('expected a recording')
    begun.complete({ out: 'sunny' }, 3)
    const state = await tape.finish()
    expect(state.ignored).toBeUndefined()
    const cassette = parseCassette(store.files[PATH]!, PATH)
    expect(cassette.header.ignore).toBeUndefined()
    expect(cassette.decisions[0]!.key).toBe(computeKey('llm', request('req-1'), { step: 1 }))
    expect(cassette.decisions[0]!.wire).toMatch(/^[0-9a-f]{16}$/)
  })
})
