import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStyle, main } from '@agent-tape/cli'
import { type Cassette, serializeCassette } from '@agent-tape/core'
import { describe, expect, it } from 'vitest'
import { SECRET_CORPUS, type SecretSample, shownBeyondPreview } from '../support/secret-corpus.js'

// Cassettes written by hand, or by a version of agent-tape that missed a shape, can hold a
// secret. The CLI reads them; nothing it prints may show more than 4 characters of one.
const dir = mkdtempSync(join(tmpdir(), 'agent-tape-secret-cli-'))

function cassetteWith(sample: SecretSample, variant: string): Cassette {
  const at = Math.floor(sample.text.length / 2)
  const chunk = (content: string, t: number) => ({ t, json: { choices: [{ index: 0, delta: { content } }] } })
  return {
    header: {
      agentTape: 1,
      keyScheme: 1,
      test: `cli > ${sample.id}`,
      recordedAt: '2026-12-01T00:00:00.000Z',
    },
    decisions: [
      {
        seq: 1,
        key: 'tool:0123456789abcdef',
        kind: 'tool',
        step: 0,
        ms: 1,
        in: { name: 'login', args: [{ token: sample.text, variant }] },
        out: { session: `${variant} ${sample.text}` },
      },
      {
        seq: 2,
        key: 'llm:0123456789abcdef',
        kind: 'llm',
        step: 1,
        ms: 5,
        in: {
          api: 'openai-chat',
          method: 'POST',
          path: '/v1/chat/completions',
          body: { model: 'gpt-4o', messages: [{ role: 'user', content: `Remember ${sample.text}` }] },
        },
        out: {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: {
            sse: [
              chunk(`${variant}: ${sample.text.slice(0, at)}`, 1),
              chunk(`${sample.text.slice(at)}.`, 2),
              { t: 3, data: '[DONE]' },
            ],
          },
        },
      },
      {
        seq: 3,
        key: 'http:0123456789abcdef',
        kind: 'http',
        step: 1,
        ms: 2,
        in: { method: 'GET', url: 'https://files.example.com/key.bin' },
        out: {
          status: 200,
          headers: { 'content-type': 'application/octet-stream' },
          body: { base64: Buffer.concat([Buffer.from([0xff]), Buffer.from(sample.text)]).toString('base64') },
        },
      },
    ],
  }
}

async function cli(args: string[]): Promise<{ code: number; output: string }> {
  let output = ''
  const write = (text: string) => {
    output += text
  }
  const code = await main(args, {
    stdout: write,
    stderr: write,
    env: {},
    cwd: dir,
    style: createStyle(false),
  })
  return { code, output }
}

describe.each(SECRET_CORPUS.map((s) => [s.id, s] as const))('%s', (id, sample) => {
  it('show, diff, view and verify show no more than 4 characters of it', async () => {
    const a = `${id}-a.jsonl`
    const b = `${id}-b.jsonl`
    writeFileSync(join(dir, a), serializeCassette(cassetteWith(sample, 'first')))
    writeFileSync(join(dir, b), serializeCassette(cassetteWith(sample, 'second')))
    for (const args of [
      ['show', a, '--full'],
      ['show', a, '--json'],
      ['diff', a, b],
      ['diff', a, b, '--json'],
    ]) {
      const { code, output } = await cli(args)
      expect(code, output).toBe(args[0] === 'diff' ? 1 : 0)
      expect(shownBeyondPreview(output, sample), args.join(' ')).toEqual([])
    }
    // The pages of view hold the whole cassette: nothing more of a secret than the terminal shows.
    for (const args of [
      ['view', a, '-o', `${id}-run.html`],
      ['view', a, b, '-o', `${id}-diff.html`],
    ]) {
      const { code, output } = await cli(args)
      expect(code, output).toBe(0)
      const page = readFileSync(join(dir, args.at(-1)!), 'utf8')
      expect(shownBeyondPreview(page, sample), args.join(' ')).toEqual([])
    }
    const verify = await cli(['verify', a])
    expect(verify.code).toBe(1)
    expect(verify.output).toContain('secret in decision #1 (tool "login", step 0) in.args[0].token')
    expect(verify.output).toContain(
      'out.body.sse[*].choices[]{index=0}.delta.content (reassembled from 2 events)',
    )
    expect(verify.output).toContain('out.body.base64 (base64-decoded)')
    expect(shownBeyondPreview(verify.output, sample)).toEqual([])
  })
})
