import { describe, expect, it } from 'vitest'
import { encodeInputs } from './cassette-encoding.js'
import type { Cassette } from './cassette-format.js'
import { findCassetteSecrets, redactCassetteForReading } from './secret-scan.js'
import { SecretScanner } from './secrets/index.js'

const SECRET = `sk-proj-${'Xk9pQ2vL7mR4tY8w'.repeat(3)}`
const HEADER = { agentTape: 2, keyScheme: 1, test: 't', recordedAt: '2026-12-01T00:00:00.000Z' }

const event = (content: string) => ({ json: { choices: [{ index: 0, delta: { content } }] } })

function cassetteOf(inputs: unknown[]): Cassette {
  return {
    header: HEADER,
    decisions: inputs.map((input, i) => ({
      seq: i + 1,
      key: 'tool:0123456789abcdef',
      kind: 'tool',
      step: i,
      ms: 1,
      in: input,
    })),
  }
}

describe('findCassetteSecrets on patched inputs', () => {
  it('joins a stream of an input whole when a patch appends to it: a secret split between the base and the patch', () => {
    const history = Array.from({ length: 20 }, (_, i) => event(`chunk ${i} of a long answer. `))
    const first = {
      name: 'relay',
      args: [{ body: { sse: [...history, event(`key ${SECRET.slice(0, 20)}`)] } }],
    }
    const second = {
      name: 'relay',
      args: [{ body: { sse: [...first.args[0]!.body.sse, event(`${SECRET.slice(20)} end`)] } }],
    }
    const cassette = cassetteOf([first, second])
    const encoded = encodeInputs(cassette)
    expect(encoded[1]).toMatchObject({ base: 1, patch: [{ op: 'add', path: '/args/0/body/sse/-' }] })
    const findings = findCassetteSecrets(cassette, new SecretScanner())
    expect(findings.map((f) => `${f.where} ${f.path}`)).toEqual([
      'decision #2 (tool "relay", step 1) in.args[0].body.sse[*].choices[]{index=0}.delta.content (reassembled from 22 events)',
    ])
  })

  it('reports a secret in a patch value at its path in the whole input, once', () => {
    const messages = Array.from({ length: 10 }, (_, i) => ({
      role: 'user',
      content: `message ${i} `.repeat(15),
    }))
    const cassette = cassetteOf([
      { name: 'chat', args: [{ messages }] },
      { name: 'chat', args: [{ messages: [...messages, { role: 'user', content: `my key ${SECRET}` }] }] },
      {
        name: 'chat',
        args: [
          {
            messages: [
              ...messages,
              { role: 'user', content: `my key ${SECRET}` },
              { role: 'user', content: 'thanks' },
            ],
          },
        ],
      },
    ])
    expect(findCassetteSecrets(cassette, new SecretScanner()).map((f) => `${f.where} ${f.path}`)).toEqual([
      'decision #2 (tool "chat", step 1) in.args[0].messages[10].content',
    ])
  })
})

describe('redactCassetteForReading', () => {
  it('reads a message that several inputs share once, and redacts it in each', () => {
    const leaked = { role: 'user', content: `my key ${SECRET}` }
    const clean = { role: 'user', content: 'thanks' }
    const cassette = cassetteOf([
      { name: 'chat', args: [{ messages: [clean, leaked] }] },
      { name: 'chat', args: [{ messages: [clean, leaked, { role: 'user', content: 'again' }] }] },
    ])
    const [first, second] = redactCassetteForReading(cassette, new SecretScanner()).decisions.map(
      (d) => (d.in as { args: [{ messages: { content: string }[] }] }).args[0].messages,
    )
    expect(first![1]!.content).toBe('my key [REDACTED:openai-key]')
    // The same copy in both: the shared message was read once.
    expect(second![1]).toBe(first![1])
    expect(second![0]).toBe(clean)
  })
})
