import type { Cassette, DecisionRecord } from '@agent-tape/core/internal'
import { describe, expect, it } from 'vitest'
import { renderTranscript } from './render-transcript.js'

const HEADER = {
  agentTape: 2,
  keyScheme: 1,
  test: 'agent.test.ts > lanes',
  recordedAt: '2026-12-01T00:00:00.000Z',
  runtime: { agentTape: '0.1.0' },
  sdks: { 'some-sdk': '1.2.3' },
  env: { REGION: 'sha256:0123456789abcdef' },
}

function decision(seq: number, kind: string, step: number, fields: Partial<DecisionRecord>): DecisionRecord {
  return { seq, key: `${kind}:0123456789abcdef`, kind, step, ms: 3, in: {}, ...fields }
}

describe('renderTranscript', () => {
  it('prints each kind of decision a fact a line: env reads, code-taped model calls, lanes, errors, MCP and HTTP', () => {
    const cassette: Cassette = {
      header: HEADER,
      decisions: [
        decision(1, 'env', 0, {
          in: { keys: ['REGION', 'DEBUG'] },
          out: { REGION: 'sha256:0123456789abcdef' },
        }),
        decision(2, 'llm', 1, {
          lane: 'worker',
          in: { model: 'local-7b', messages: [{ role: 'user', content: 'Plan it. Then do it.' }] },
          out: { text: 'Done.' },
        }),
        decision(3, 'tool', 1, {
          lane: 'worker',
          in: { name: 'deploy', args: [{ env: 'prod' }] },
          err: { name: 'Error', message: 'refused' },
        }),
        decision(4, 'mcp', 1, {
          in: { method: 'tools/call', params: { name: 'search', arguments: { q: 'tape' } } },
          out: { content: [{ type: 'text', text: '3 results' }] },
        }),
        decision(5, 'http', 1, {
          in: { method: 'GET', url: 'https://example.org/status' },
          out: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { ok: true } } },
        }),
      ],
    }
    expect(renderTranscript('lanes.jsonl', cassette)).toBe(`agent-tape cassette (format 2, key scheme 1)
test       agent.test.ts > lanes
recorded   2026-12-01T00:00:00.000Z
model      local-7b
agent-tape 0.1.0
sdk        some-sdk 1.2.3
harness    not recorded
env        REGION
decisions  5: 1 env read, 1 model request, 1 tool call, 1 MCP request, 1 http request

step 0  env read [REGION, DEBUG]
    REGION     set
    DEBUG      unset

step 1  lane "worker"  model request (local-7b)
    request    model request
    param      model: "local-7b"
    messages   1 of 1
    user       Plan it.
               Then do it.
    output     {"text":"Done."}

step 1  lane "worker"  tool "deploy"
    args       {"env":"prod"}
    error      Error: refused

step 1  mcp tools/call "search"
    args       {"q":"tape"}
    result     {"content":[{"type":"text","text":"3 results"}]}

step 1  http GET https://example.org/status
    input      {"method":"GET","url":"https://example.org/status"}
    status     200 application/json
    body       {"ok":true}
`)
  })

  it('prints long JSON a member a line, and a string too long for a line broken at spaces', () => {
    const long = 'word '.repeat(30).trim()
    const cassette: Cassette = {
      header: HEADER,
      decisions: [
        decision(1, 'tool', 0, { in: { name: 'note', args: [{ text: long, tags: ['a', 'b'] }] }, out: 'ok' }),
      ],
    }
    const lines = renderTranscript('note.jsonl', cassette).split('\n')
    expect(lines.slice(lines.indexOf('step 0  tool "note"'))).toEqual([
      'step 0  tool "note"',
      '    args       {',
      `                 "text": "${'word '.repeat(15).trim()}`,
      `                   ${'word '.repeat(15).trim()}",`,
      '                 "tags": ["a","b"]',
      '               }',
      '    result     ok',
      '',
    ])
  })
})
