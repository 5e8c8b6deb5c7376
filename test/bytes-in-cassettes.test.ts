import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isReplayMiss, openTape, parseCassette } from '@agent-tape/core'
import { computeKey } from '@agent-tape/core/internal'
import { createFileStore } from '@agent-tape/core/node'
import { afterAll, expect, it } from 'vitest'

// Bytes a tool reads or is given are stored as base64 with their kind, and replayed as that kind.
const dir = mkdtempSync(join(tmpdir(), 'agent-tape-bytes-'))
const store = createFileStore(dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const open = (id: string, mode: 'update' | 'replay' | 'live-tools') =>
  openTape({ id, cassettePath: `${id}.jsonl`, store, mode, env: {} })

/** A small PNG's first bytes, then noise: what an agent reading an image gets. */
function imageBytes(): Buffer {
  return Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(2048)])
}

it('replays a file read without an encoding as a Buffer equal to the file', async () => {
  const file = join(dir, 'logo.png')
  const bytes = imageBytes()
  writeFileSync(file, bytes)
  const tape = await open('read-file', 'update')
  const read = await tape.tool('read_file', { path: 'logo.png' }, () => readFile(file))
  expect(Buffer.isBuffer(read)).toBe(true)
  await tape.finish()

  const text = readFileSync(join(dir, 'read-file.jsonl'), 'utf8')
  const line = JSON.parse(text.split('\n')[1]!)
  expect(line.out).toEqual({ $bytes: bytes.toString('base64'), type: 'Buffer' })
  expect(text).not.toContain('"data":[')

  rmSync(file)
  const replay = await open('read-file', 'replay')
  const replayed = await replay.tool('read_file', { path: 'logo.png' }, () => readFile(file))
  expect(Buffer.isBuffer(replayed)).toBe(true)
  expect((replayed as Buffer).equals(bytes)).toBe(true)
  expect((await replay.finish()).status).toBe('clean')
})

it('replays each kind of bytes as that kind, at any depth of a result', async () => {
  const source = randomBytes(64)
  const result = () => ({
    image: new Uint8Array(source),
    chunks: [
      source.buffer.slice(source.byteOffset, source.byteOffset + 64),
      new Float64Array(source.buffer.slice(source.byteOffset, source.byteOffset + 64)),
    ],
    view: { header: new DataView(new Uint8Array(source).buffer, 4, 8) },
  })
  const tape = await open('kinds', 'update')
  await tape.tool('fetch_image', {}, result)
  await tape.finish()
  const replay = await open('kinds', 'replay')
  const replayed = (await replay.tool('fetch_image', {}, () => ({}))) as ReturnType<typeof result>
  expect(replayed.image).toBeInstanceOf(Uint8Array)
  expect(Buffer.isBuffer(replayed.image)).toBe(false)
  expect(Buffer.from(replayed.image).equals(source)).toBe(true)
  expect(replayed.chunks[0]).toBeInstanceOf(ArrayBuffer)
  expect(Buffer.from(replayed.chunks[0] as ArrayBuffer).equals(source)).toBe(true)
  expect(replayed.chunks[1]).toEqual(result().chunks[1])
  expect(replayed.view.header).toBeInstanceOf(DataView)
  expect(Buffer.from(replayed.view.header.buffer).equals(source.subarray(4, 12))).toBe(true)
})

it('keys bytes in an input by their content: the same bytes replay, other bytes miss', async () => {
  const bytes = imageBytes()
  const tape = await open('upload', 'update')
  await tape.tool('upload', { name: 'logo.png', body: bytes }, () => 'uploaded')
  await tape.finish()
  const replay = await open('upload', 'replay')
  expect(await replay.tool('upload', { name: 'logo.png', body: Buffer.from(bytes) }, () => 'live')).toBe(
    'uploaded',
  )
  const other = Buffer.from(bytes)
  other[100] = (other[100]! + 1) % 256
  const miss = await replay.tool('upload', { name: 'logo.png', body: other }, () => 'live').catch((e) => e)
  expect(isReplayMiss(miss)).toBe(true)
})

it('keys two ArrayBuffers of different bytes apart (a JSON copy made both {})', async () => {
  const tape = await open('buffers', 'update')
  await tape.tool('hash', [new Uint8Array([1, 2, 3]).buffer], () => 'one-two-three')
  await tape.tool('hash', [new Uint8Array([4, 5, 6]).buffer], () => 'four-five-six')
  await tape.finish()
  const keys = parseCassette(readFileSync(join(dir, 'buffers.jsonl'), 'utf8'), 'buffers.jsonl').decisions.map(
    (d) => d.key,
  )
  expect(new Set(keys).size).toBe(2)
  const replay = await open('buffers', 'replay')
  expect(await replay.tool('hash', [new Uint8Array([4, 5, 6]).buffer], () => 'live')).toBe('four-five-six')
  expect(await replay.tool('hash', [new Uint8Array([1, 2, 3]).buffer], () => 'live')).toBe('one-two-three')
})

it('gives back a member that only looks like the encoding as the data it was', async () => {
  const lookalike = { $bytes: Buffer.from('not bytes').toString('base64'), type: 'Buffer' }
  const tape = await open('lookalike', 'update')
  await tape.tool('read_config', { filter: lookalike }, () => ({ config: lookalike, list: [{ $$bytes: 1 }] }))
  await tape.finish()
  const replay = await open('lookalike', 'replay')
  const replayed = await replay.tool('read_config', { filter: lookalike }, () => ({}))
  expect(replayed).toEqual({ config: lookalike, list: [{ $$bytes: 1 }] })
})

it('finds no drift in live-tools when the tool reads the same bytes again', async () => {
  const file = join(dir, 'notes.bin')
  writeFileSync(file, imageBytes())
  const tape = await open('live', 'update')
  await tape.tool('read_file', { path: 'notes.bin' }, () => readFile(file))
  await tape.finish()
  const live = await open('live', 'live-tools')
  const replayed = await live.tool('read_file', { path: 'notes.bin' }, () => readFile(file))
  expect(Buffer.isBuffer(replayed)).toBe(true)
  const state = await live.finish()
  expect(state.status, JSON.stringify(state.drifted)).toBe('clean')
})

it('misses bytes in an input recorded before they were encoded, and says why', async () => {
  const bytes = Buffer.from('GIF89a, a small image')
  const input = { name: 'upload', args: { body: bytes.toJSON() } }
  const old = [
    { agentTape: 2, keyScheme: 1, test: 'old', recordedAt: '2026-01-01T00:00:00.000Z' },
    {
      seq: 1,
      key: computeKey('tool', input, { step: 0 }),
      kind: 'tool',
      step: 0,
      ms: 1,
      in: input,
      out: 'uploaded',
    },
    {
      seq: 2,
      key: computeKey('tool', { name: 'download', args: {} }, { step: 0 }),
      kind: 'tool',
      step: 0,
      ms: 1,
      in: { name: 'download', args: {} },
      out: bytes.toJSON(),
    },
  ]
  writeFileSync(join(dir, 'old.jsonl'), `${old.map((line) => JSON.stringify(line)).join('\n')}\n`)
  const replay = await open('old', 'replay')
  const miss = await replay.tool('upload', { body: bytes }, () => 'live').catch((e) => e)
  expect(isReplayMiss(miss)).toBe(true)
  expect((miss as Error).message).toContain(
    'Hint: the recorded input holds bytes as a list of numbers ({"type":"Buffer","data":[…]}), as agent-tape wrote them before it stored bytes as base64',
  )
  // An output recorded that way replays as it always did: the Buffer's JSON, not a Buffer.
  expect(await replay.tool('download', {}, () => Buffer.alloc(0))).toEqual(bytes.toJSON())
})
