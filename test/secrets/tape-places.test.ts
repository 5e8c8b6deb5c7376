import { readFileSync } from 'node:fs'
import { createMemoryStore, isReplayMiss, isSecretLeakError, openTape, type Tape } from '@agent-tape/core'
import { describe, expect, it } from 'vitest'
import { createSecretChecks, PREVIOUS } from '../support/secret-checks.js'
import {
  LOOK_ALIKES,
  leakedFragments,
  SECRET_CORPUS,
  type SecretSample,
  shownBeyondPreview,
} from '../support/secret-corpus.js'

const { dir, store, recording, expectRefused, expectClean } = createSecretChecks('secret-places')

describe.each(SECRET_CORPUS.map((s) => [s.id, s] as const))('%s', (id, sample) => {
  it('is redacted from tool arguments, and a replay miss on them does not print it', async () => {
    const { tape, file } = await recording(`${id}-args`)
    await tape.tool('send_note', { note: sample.text }, () => 'sent')
    await tape.finish()
    expect(expectClean(file, sample)).toContain('[REDACTED:')
    const replay = await openTape({ id, cassettePath: `${id}-args.jsonl`, store, mode: 'replay', env: {} })
    const miss = await replay
      .tool('send_note', { note: `${sample.text} again` }, () => 'live')
      .catch((e) => e)
    expect(isReplayMiss(miss)).toBe(true)
    expect(shownBeyondPreview((miss as Error).message, sample)).toEqual([])
  })

  it('refuses a tool result holding it', async () => {
    const { tape, file } = await recording(`${id}-result`)
    await tape.tool('read_config', {}, () => ({ settings: { value: `config: ${sample.text}` } }))
    await expectRefused(tape, file, sample, 'decision #1 (tool "read_config", step 0) out.settings.value')
  })

  it('refuses a tool error holding it', async () => {
    const { tape, file } = await recording(`${id}-error`)
    await expect(
      tape.tool('connect', {}, () => {
        throw new Error(`could not connect with ${sample.text}`)
      }),
    ).rejects.toThrow()
    await expectRefused(tape, file, sample, 'decision #1 (tool "connect", step 0) err.message')
  })

  it('refuses a model answer, a response header and a base64 body holding it', async () => {
    const answers: [string, unknown][] = [
      [
        'out.body.json.choices[0].message.content',
        { json: { choices: [{ message: { content: sample.text } }] } },
      ],
      [
        'out.body.base64 (base64-decoded)',
        {
          base64: Buffer.concat([
            Buffer.from([0xff, 0xfe, 0x00]),
            Buffer.from(sample.text),
            Buffer.from([0xc3]),
          ]).toString('base64'),
        },
      ],
    ]
    for (const [where, body] of answers) {
      const { tape, file } = await recording(`${id}-answer`)
      respond(tape, { status: 200, headers: { 'content-type': 'application/json' }, body })
      await expectRefused(tape, file, sample, where)
    }
    const { tape, file } = await recording(`${id}-header`)
    respond(tape, { status: 200, headers: { 'x-request-id': sample.text } })
    await expectRefused(tape, file, sample, 'out.headers["x-request-id"]')
  })

  it('refuses a streamed answer that splits it at any position, in every provider stream shape', async () => {
    const memory = createMemoryStore()
    for (let at = 1; at < sample.text.length; at++) {
      const shape = STREAM_SHAPES[at % STREAM_SHAPES.length]!
      const pieces = [`Sure: ${sample.text.slice(0, at)}`, `${sample.text.slice(at)} done.`]
      memory.files['c.jsonl'] = PREVIOUS
      const tape = await openTape({ id, cassettePath: 'c.jsonl', store: memory, mode: 'update', env: {} })
      respond(tape, {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: { sse: shape.events(pieces) },
      })
      const error = await tape.finish().catch((e: unknown) => e)
      if (!isSecretLeakError(error))
        throw new Error(`${sample.id} split at ${at} (${shape.name}) was not refused`)
      expect(error.message).toContain('(reassembled from')
      expect(shownBeyondPreview(error.message, sample)).toEqual([])
      expect(memory.files['c.jsonl']).toBe(PREVIOUS)
    }
  })
})

function respond(tape: Tape, out: unknown): void {
  const begun = tape.begin('llm', { api: 'openai-chat', body: { model: 'gpt-4o', messages: [] } })
  if (begun.action !== 'record') throw new Error('expected a recording tape')
  begun.complete({ out }, 5)
}

/** How each provider carries streamed text: the deltas a reader joins back together. */
const STREAM_SHAPES: { name: string; events(pieces: string[]): unknown[] }[] = [
  {
    name: 'openai chat text',
    events: (pieces) => [
      ...pieces.map((content, i) => ({
        t: i,
        json: { id: 'chatcmpl-1', choices: [{ index: 0, delta: { content } }] },
      })),
      { t: 9, data: '[DONE]' },
    ],
  },
  {
    name: 'openai chat tool arguments',
    events: (pieces) =>
      pieces.map((part, i) => ({
        t: i,
        json: {
          choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: part } }] } }],
        },
      })),
  },
  {
    name: 'openai responses',
    events: (pieces) =>
      pieces.map((delta, i) => ({
        t: i,
        event: 'response.output_text.delta',
        json: {
          type: 'response.output_text.delta',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          delta,
        },
      })),
  },
  {
    name: 'anthropic messages',
    events: (pieces) => [
      { t: 0, event: 'ping', data: '{"type": "ping"}' },
      ...pieces.map((text, i) => ({
        t: i,
        event: 'content_block_delta',
        json: { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text } },
      })),
    ],
  },
  {
    name: 'plain text events',
    events: (pieces) => pieces.map((data, i) => ({ t: i, data })),
  },
]

describe('secret-like environment variables', () => {
  const lengths = [8, 9, 13, 24, 40]
  it.each(lengths)(
    'a %i-character value is refused in results, redacted in arguments, and never printed',
    async (length) => {
      const value = 'Qz7'.repeat(14).slice(0, length)
      const sample: SecretSample = { id: `env-${length}`, secret: value, text: value, prefix: 0 }
      const env = { SERVICE_TOKEN: value, PWD: dir, HOME: '/root' }
      const { tape, file } = await recording(`env-${length}`, env)
      await tape.tool('whoami', {}, () => `signed in with ${value} at ${dir}`)
      const error = await tape.finish().catch((e: unknown) => e)
      expect(isSecretLeakError(error)).toBe(true)
      const message = (error as Error).message
      expect(message).toContain(`out contains the value of $SERVICE_TOKEN (${length} chars)`)
      expect(message.replace(/\$SERVICE_TOKEN|\[agent-tape\]|#\d|\d+ chars/g, '')).not.toMatch(
        new RegExp(`(?<![A-Za-z0-9])${value}(?![A-Za-z0-9])`),
      )
      expect(readFileSync(file, 'utf8')).toBe(PREVIOUS)
      const args = await recording(`env-args-${length}`, env)
      await args.tape.tool('login', { user: 'ada', secret: value, cwd: dir }, () => 'ok')
      await args.tape.finish()
      const written = readFileSync(args.file, 'utf8')
      // A short value is a secret only as a whole word; inside other text it is any letters.
      expect(written).not.toMatch(new RegExp(`(?<![A-Za-z0-9])${value}(?![A-Za-z0-9])`))
      if (length >= 16) expect(leakedFragments(written, sample)).toEqual([])
      expect(written).toContain('"secret":"[REDACTED:env:SERVICE_TOKEN]"')
      expect(written).toContain(dir)
    },
  )

  // A value this short turns up in ordinary text by chance (a date, a count, a word), so it is
  // not matched as the variable's value; by its name (`"password": …`) it still is.
  it.each([1, 2, 3, 5, 7])('a %i-character value is not matched by value', async (length) => {
    const value = 'Qz7'.repeat(3).slice(0, length)
    const env = { SERVICE_TOKEN: value }
    const { tape, file } = await recording(`env-short-${length}`, env)
    await tape.tool('count', { note: `took ${value} steps` }, () => `step ${value} of ${value}`)
    await tape.finish()
    const written = readFileSync(file, 'utf8')
    expect(written).toContain(`"note":"took ${value} steps"`)
    expect(written).toContain(`step ${value} of ${value}`)
  })

  it('takes a value for what it is: numbers, URLs, models and limits are not secrets', async () => {
    const env = {
      PASSWORD_MIN_LENGTH: '12',
      OPENAI_MAX_TOKENS: '1024',
      TOKEN_URL: 'https://auth.example.com/oauth/token',
      SESSION_TOKEN_MODEL: 'gpt-4o-mini',
      MODEL_AUTH_TOKEN: 'claude-3-5-sonnet-20241022',
      DB_PASSWORD: 'postgres',
    }
    const { tape, file } = await recording('env-ordinary', env)
    const text = `On 2026-12-12, 1024 tokens from gpt-4o-mini and claude-3-5-sonnet-20241022 via postgres; token at https://auth.example.com/oauth/token, min length 12`
    await tape.tool('report', { text }, () => text)
    await tape.finish()
    const written = readFileSync(file, 'utf8')
    expect(written).not.toContain('[REDACTED')
    expect(written.split(JSON.stringify(text))).toHaveLength(3)
  })
  it('stores env reads as salted hashes, so the same value hashes differently in two cassettes', async () => {
    const files: string[] = []
    for (const name of ['salt-a', 'salt-b']) {
      const { tape, file } = await recording(name, { REGION: 'eu-west-1' })
      tape.env(['REGION'])
      await tape.finish()
      files.push(readFileSync(file, 'utf8'))
    }
    const hashes = files.map((text) => /"REGION":"(sha256:[0-9a-f]{16})"/.exec(text)?.[1])
    expect(hashes[0]).toMatch(/^sha256:/)
    expect(hashes[0]).not.toBe(hashes[1])
  })
})

describe('look-alikes record normally', () => {
  it.each(LOOK_ALIKES.map((l) => [l.id, l.text] as const))('%s', async (_, text) => {
    // A coding agent's working directory is in PWD and in its tool results; it is no secret.
    const env = {
      PWD: dir,
      OLDPWD: '/tmp',
      HOME: '/root',
      GOOGLE_APPLICATION_CREDENTIALS: '/secrets/sa.json',
    }
    const { tape, file } = await recording('look-alike', env)
    await tape.tool('read_file', { path: `${dir}/notes.md`, note: text }, () => ({ content: text, cwd: dir }))
    const state = await tape.finish()
    expect(state.written).toBe(true)
    const written = readFileSync(file, 'utf8')
    expect(written).not.toContain('[REDACTED')
    expect(written).toContain(JSON.stringify(text).slice(1, -1))
  })
})
