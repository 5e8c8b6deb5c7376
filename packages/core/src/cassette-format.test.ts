import { cpSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isSameRecording, parseCassette, serializeCassette } from './cassette-format.js'
import { type CassetteCorruptError, isCassetteCorruptError } from './errors.js'
import { createFileStore } from './node/file-store.js'
import { openTape } from './open-tape.js'

const FIXTURES = join(import.meta.dirname, '..', 'test-fixtures')
const read = (name: string) => readFileSync(join(FIXTURES, name), 'utf8')
const RESTORE =
  'Restore it from version control (git checkout -- <file>), or delete it and re-record the test.'

function loadError(name: string): Error {
  try {
    parseCassette(read(name), name)
  } catch (error) {
    return error as Error
  }
  throw new Error(`${name} parsed without an error`)
}

describe('parseCassette', () => {
  it('reads a valid cassette as data', () => {
    const cassette = parseCassette(read('valid.jsonl'), 'valid.jsonl')
    expect(cassette.header.test).toBe('agent.test.ts > issue-412')
    expect(cassette.decisions.map((d) => d.key)).toEqual(['llm:0123456789abcdef', 'tool:fedcba9876543210'])
    expect(serializeCassette(cassette)).toBe(read('valid.jsonl'))
  })

  it.each([
    [
      'truncated.jsonl',
      3,
      'the line is truncated (the file ends in the middle of a JSON line, as when a write is interrupted)',
    ],
    ['invalid-json-line.jsonl', 2, /^the line is not valid JSON \(.+\)$/],
    ['duplicate-header.jsonl', 3, 'the line is a second header (a cassette has exactly one, on line 1)'],
    ['seq-gap.jsonl', 3, 'expected decision seq 2, found 3 (lines were removed or reordered)'],
    ['bad-key.jsonl', 2, '"key" is "llm:XYZ", not a key like "llm:0123456789abcdef"'],
    ['blank-line.jsonl', 3, 'the line is blank (cassettes have no blank lines)'],
    ['empty.jsonl', 1, 'the file is empty (a cassette starts with a header line)'],
    ['not-an-object.jsonl', 2, 'the line is not a JSON object'],
  ])('%s: names the file and line %i and how to recover', (name, line, why) => {
    const error = loadError(name)
    expect(isCassetteCorruptError(error)).toBe(true)
    expect(error).toMatchObject({ code: 'ERR_TAPE_CORRUPT', file: name, line })
    const prefix = `[agent-tape] Cannot load cassette ${name} (line ${line}): `
    const suffix = `. ${RESTORE.replace('<file>', name)}`
    expect(error.message.startsWith(prefix)).toBe(true)
    expect(error.message.endsWith(suffix)).toBe(true)
    const reason = error.message.slice(prefix.length, -suffix.length)
    if (typeof why === 'string') expect(reason).toBe(why)
    else expect(reason).toMatch(why)
  })

  it('says a file that is not a cassette is not one, and suggests restoring only a .jsonl file', () => {
    const pass =
      'Pass the path of a .jsonl cassette (they are in the __cassettes__ folders beside the tests).'
    // package.json, a README, a YAML file: plainly not cassettes, and not ours to restore.
    expect(() => parseCassette('{\n  "name": "my-app",\n  "version": "1.0.0"\n}\n', 'package.json')).toThrow(
      `[agent-tape] package.json is not a cassette: it is a JSON document, and a cassette is JSON Lines. ${pass}`,
    )
    expect(() => parseCassette('# My app\n\nIt triages tickets.\n', 'README.md')).toThrow(
      `[agent-tape] README.md is not a cassette: its first line is not JSON, and a cassette is JSON Lines. ${pass}`,
    )
    expect(() => parseCassette('"a string"\n', 'notes.txt')).toThrow(
      `[agent-tape] notes.txt is not a cassette: its first line is not a JSON object, and a cassette is JSON Lines of objects. ${pass}`,
    )
    expect(() => parseCassette('{"name":"a"}\n{"name":"b"}\n', 'events.ndjson')).toThrow(
      `[agent-tape] events.ndjson is not a cassette: its first line is not a cassette header (it has no "agentTape" field). ${pass}`,
    )
    for (const [name, text] of [
      ['package.json', '{"name":"x"}'],
      ['README.md', '# x\n'],
    ]) {
      expect(() => parseCassette(text!, name!)).not.toThrow(/git checkout/)
    }
    // A .jsonl file without its header may be a cassette that lost it.
    expect(loadError('missing-header.jsonl').message).toBe(
      `[agent-tape] missing-header.jsonl is not a cassette: its first line is not a cassette header (it has no "agentTape" field). ${pass.slice(0, -1)}; if this file is a cassette whose header was lost, restore it from version control (git checkout -- missing-header.jsonl).`,
    )
  })

  it('reads a cassette that starts with a UTF-8 byte-order mark, as some Windows editors write', () => {
    const cassette = parseCassette(`\uFEFF${read('valid.jsonl')}`, 'valid.jsonl')
    expect(cassette.decisions).toHaveLength(2)
    expect(serializeCassette(cassette)).toBe(read('valid.jsonl'))
  })

  it('an unknown (newer) format version says to upgrade', () => {
    expect((loadError('future-format.jsonl') as CassetteCorruptError).reason).toBe(
      'it was written in cassette format 7 by a newer agent-tape; this version reads format 2. Upgrade the @agent-tape packages, or re-record the test with this version.',
    )
    expect(loadError('future-format.jsonl').message).toBe(
      '[agent-tape] Cannot load cassette future-format.jsonl (line 1): it was written in cassette format 7 by a newer agent-tape; this version reads format 2. Upgrade the @agent-tape packages, or re-record the test with this version.',
    )
  })

  it('a cassette from another key scheme says to re-record', () => {
    expect(loadError('old-key-scheme.jsonl').message).toBe(
      '[agent-tape] Cannot load cassette old-key-scheme.jsonl (line 1): its keys use key scheme 0, and this version of agent-tape computes scheme 1. Re-record the test (keys cannot be recomputed from the redacted inputs).',
    )
  })
})

describe('isSameRecording', () => {
  it('ignores recordedAt and durations, nothing else', () => {
    const a = parseCassette(read('valid.jsonl'), 'a')
    const later = {
      header: { ...a.header, recordedAt: '2027-01-01T00:00:00.000Z' },
      decisions: a.decisions.map((d) => ({ ...d, ms: d.ms + 5 })),
    }
    expect(isSameRecording(a, later)).toBe(true)
    const changed = {
      ...a,
      decisions: a.decisions.map((d, i) => (i === 1 ? { ...d, out: { total: 4300 } } : d)),
    }
    expect(isSameRecording(a, changed)).toBe(false)
  })

  it('ignores when each decision began, and a recording made before decisions had an `at`', () => {
    const a = parseCassette(read('valid.jsonl'), 'a')
    expect(a.decisions.map((d) => d.at)).toEqual([undefined, undefined])
    const timed = (offset: number) => ({
      ...a,
      decisions: a.decisions.map((d, i) => ({ ...d, at: offset + 100 * i })),
    })
    expect(isSameRecording(timed(0), timed(37))).toBe(true)
    expect(isSameRecording(a, timed(37))).toBe(true)
    expect(isSameRecording(timed(37), a)).toBe(true)
    // Written and read back as it was.
    expect(parseCassette(serializeCassette(timed(37)), 'b').decisions.map((d) => d.at)).toEqual([37, 137])
  })

  it('ignores the commit the harness was read at, not the harness tree', () => {
    const a = parseCassette(read('valid.jsonl'), 'a')
    const harness = {
      git: true as const,
      commit: 'a'.repeat(40),
      paths: ['src/agent'],
      tree: '0123456789abcdef',
      dirty: false,
    }
    const at = (commit: string, tree: string) => ({
      ...a,
      header: { ...a.header, harness: { ...harness, commit, tree } },
    })
    expect(isSameRecording(at('a'.repeat(40), 'x'), at('b'.repeat(40), 'x'))).toBe(true)
    expect(isSameRecording(at('a'.repeat(40), 'x'), at('a'.repeat(40), 'y'))).toBe(false)
  })
})

describe('loading a damaged cassette through a tape', () => {
  it('fails in auto mode and leaves the file byte for byte as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tape-'))
    cpSync(join(FIXTURES, 'truncated.jsonl'), join(dir, 'truncated.jsonl'))
    const before = readFileSync(join(dir, 'truncated.jsonl'))
    const opening = openTape({
      id: 't',
      cassettePath: 'truncated.jsonl',
      store: createFileStore(dir),
      mode: 'auto',
      env: {},
    })
    await expect(opening).rejects.toMatchObject({ code: 'ERR_TAPE_CORRUPT', line: 3 })
    expect(readFileSync(join(dir, 'truncated.jsonl')).equals(before)).toBe(true)
  })

  it('is replaced by a fresh recording in update mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tape-'))
    cpSync(join(FIXTURES, 'truncated.jsonl'), join(dir, 'c.jsonl'))
    const tape = await openTape({
      id: 't',
      cassettePath: 'c.jsonl',
      store: createFileStore(dir),
      mode: 'update',
      env: {},
    })
    await tape.tool('lookup_invoice', { invoiceId: 'INV-412' }, () => ({ total: 4200 }))
    expect(await tape.finish()).toMatchObject({ action: 'record', written: true, recorded: 1 })
    expect(parseCassette(readFileSync(join(dir, 'c.jsonl'), 'utf8'), 'c.jsonl').decisions).toHaveLength(1)
  })
})

describe('serializeCassette and parseCassette', () => {
  const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)
  const kind = fc.constantFrom('llm', 'tool', 'env', 'http', 'mcp')
  const decision = fc.record(
    {
      kind,
      hex: fc.stringMatching(/^[0-9a-f]{16}$/),
      step: fc.nat(500),
      lane: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
      ms: fc.nat(100_000),
      at: fc.nat(10_000_000),
      in: json,
      outcome: fc.oneof(
        json.map((out) => ({ out })),
        fc
          .record({ name: fc.string({ maxLength: 12 }), message: fc.string({ maxLength: 40 }) })
          .map((err) => ({ err })),
      ),
    },
    { requiredKeys: ['kind', 'hex', 'step', 'ms', 'in', 'outcome'] },
  )

  it('round-trip every cassette: the text written reads back as the same data, and writes the same text', () => {
    fc.assert(
      fc.property(fc.array(decision, { maxLength: 12 }), fc.string({ maxLength: 30 }), (decisions, test) => {
        const cassette = {
          header: { agentTape: 1, keyScheme: 1, test, recordedAt: '2026-12-01T00:00:00.000Z' },
          decisions: decisions.map((d, i) => ({
            seq: i + 1,
            key: `${d.kind}:${d.hex}`,
            kind: d.kind,
            step: d.step,
            ...(d.lane === undefined ? {} : { lane: d.lane }),
            ms: d.ms,
            ...(d.at === undefined ? {} : { at: d.at }),
            in: d.in,
            ...d.outcome,
          })),
        }
        const text = serializeCassette(cassette as never)
        const read = parseCassette(text, 'round-trip.jsonl')
        expect(read.header.test).toBe(test)
        expect(read.decisions).toEqual(JSON.parse(JSON.stringify(cassette.decisions)))
        expect(serializeCassette(read)).toBe(text)
      }),
      { numRuns: 200 },
    )
  })
})
