import { readFileSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { isReplayMiss, isSecretLeakError, openTape } from '@agent-tape/core'
import { describe, expect, it } from 'vitest'
import { createSecretChecks } from '../support/secret-checks.js'
import { generator, SECRET_CORPUS, type SecretSample } from '../support/secret-corpus.js'

// Bytes are stored as base64 (`{"$bytes": …, "type": …}`), which the scanner decodes: a secret in
// a file read without an encoding is refused in a result and redacted from an input, whatever
// kind of value holds the bytes.
const { dir, store, recording, expectRefused } = createSecretChecks('secret-bytes')

const openai = SECRET_CORPUS.find((s) => s.id === 'openai-project-key')!
/** A `.env` file holding the key, as a sample whose text is the file. */
const dotenv: SecretSample = { ...openai, text: `NODE_ENV=test\nOPENAI_API_KEY=${openai.secret}\n` }

const KINDS: [string, (bytes: Buffer) => unknown][] = [
  ['Buffer', (bytes) => Buffer.from(bytes)],
  ['Uint8Array', (bytes) => new Uint8Array(bytes)],
  ['ArrayBuffer', (bytes) => new Uint8Array(bytes).buffer],
]

/** Bytes that look like nothing in particular: seeded, so every run sees the same. */
function noise(seed: number, length: number): Buffer {
  return Buffer.from(generator(seed).hex(length * 2), 'hex')
}

/** The input a decision was stored with, from the cassette's second line. */
function storedInput(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8').split('\n')[1]!).in
}

it('refuses a .env file read as bytes, naming the decision, and leaves the previous cassette as it was', async () => {
  const path = join(dir, '.env')
  writeFileSync(path, dotenv.text)
  const { tape, file } = await recording('dotenv-file')
  const read = await tape.tool('read_file', { path: '.env' }, () => readFile(path))
  expect(Buffer.isBuffer(read)).toBe(true)
  await expectRefused(
    tape,
    file,
    dotenv,
    'decision #1 (tool "read_file", step 0) out.$bytes (base64-decoded)',
  )
})

describe.each(KINDS)('bytes as %s', (kind, make) => {
  it('are refused in a tool result that holds a key, at any depth', async () => {
    const { tape, file } = await recording(`${kind}-result`)
    await tape.tool('read_files', {}, () => ({
      files: [{ name: '.env', body: make(Buffer.from(dotenv.text)) }],
    }))
    await expectRefused(
      tape,
      file,
      dotenv,
      'decision #1 (tool "read_files", step 0) out.files[0].body.$bytes (base64-decoded)',
    )
  })

  it('are refused when the key sits inside binary data', async () => {
    const binary = Buffer.concat([noise(1, 700), Buffer.from(`\0${dotenv.text}\0`), noise(2, 700)])
    const { tape, file } = await recording(`${kind}-binary`)
    await tape.tool('read_archive', {}, () => make(binary))
    await expectRefused(
      tape,
      file,
      dotenv,
      'decision #1 (tool "read_archive", step 0) out.$bytes (base64-decoded)',
    )
  })

  it('are redacted whole from a tool input, which still keys on the bytes themselves', async () => {
    const { tape, file } = await recording(`${kind}-input`)
    await tape.tool('upload', { name: '.env', body: make(Buffer.from(dotenv.text)) }, () => 'uploaded')
    await tape.finish()
    expect(storedInput(file)).toEqual({
      name: 'upload',
      args: { name: '.env', body: { $bytes: '[REDACTED:openai-key]', type: kind } },
    })
    const replay = await openTape({
      id: kind,
      cassettePath: `${kind}-input.jsonl`,
      store,
      mode: 'replay',
      env: {},
    })
    const same = await replay.tool(
      'upload',
      { name: '.env', body: make(Buffer.from(dotenv.text)) },
      () => 'live',
    )
    expect(same).toBe('uploaded')
    const other = Buffer.from(dotenv.text.replace('NODE_ENV=test', 'NODE_ENV=prod'))
    const miss = await replay
      .tool('upload', { name: '.env', body: make(other) }, () => 'live')
      .catch((e) => e)
    expect(isReplayMiss(miss)).toBe(true)
    expect((miss as Error).message).not.toContain(openai.secret.slice(8, 24))
  })

  it('are written as they are when they hold an image, random bytes or gzipped text', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), noise(3, 4096)])
    const gzipped = gzipSync(Buffer.from('Invoice INV-412 was charged twice on 2 May.\n'.repeat(50)))
    const samples = [png, gzipped, ...Array.from({ length: 60 }, (_, i) => noise(100 + i, 12 + i * 67))]
    for (const [i, bytes] of samples.entries()) {
      const { tape, file } = await recording(`${kind}-ordinary-${i}`)
      await tape.tool('resize', { image: make(bytes) }, () => make(bytes))
      await tape.finish()
      const line = JSON.parse(readFileSync(file, 'utf8').split('\n')[1]!)
      const encoded = { $bytes: bytes.toString('base64'), type: kind }
      expect(line.in.args.image, `sample ${i}`).toEqual(encoded)
      expect(line.out, `sample ${i}`).toEqual(encoded)
    }
  })
})

it('refuses every secret shape of the corpus inside binary data read as a Buffer', async () => {
  const missed: string[] = []
  for (const [i, sample] of SECRET_CORPUS.entries()) {
    const binary = Buffer.concat([noise(i, 300), Buffer.from(`\0${sample.text}\0`), noise(i + 1, 300)])
    const { tape, file } = await recording('corpus')
    await tape.tool('read_blob', {}, () => binary)
    const error = await tape.finish().then(
      () => undefined,
      (e: unknown) => e,
    )
    if (!isSecretLeakError(error)) missed.push(sample.id)
    expect(readFileSync(file, 'utf8').includes('read_blob')).toBe(false)
  }
  expect(missed).toEqual([])
})
