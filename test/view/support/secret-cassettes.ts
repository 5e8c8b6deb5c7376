import type { Cassette, DecisionRecord } from '@agent-tape/core'
import { formText, type SecretForm } from '../../support/secret-forms.js'
import { thirds } from '../../support/secret-places.js'

/**
 * Cassettes that hold a secret form in every place a page shows a decision from: a tool's
 * arguments, result and error, a model request's system prompt and messages, its answer whole
 * (text and a tool call's arguments) and streamed in three events, an HTTP body in base64, and
 * the header's test name. As a cassette written by hand or by an older version holds them: no
 * scan ran on the way in.
 */
export interface SecretCassettes {
  /** The recording. */
  recording: Cassette
  /** A second recording of the same run, its inputs changed: the after of a two-recording page. */
  changed: Cassette
  /** The run a replay of the recording kept: the first decision replayed, the second missed. */
  run: Cassette
}

const key = (kind: string, n: number) =>
  `${kind}:${n.toString(16).padStart(16, '0')}` as DecisionRecord['key']

const chunk = (content: string, t: number) => ({ t, json: { choices: [{ index: 0, delta: { content } }] } })

function decisions(form: SecretForm, variant: string): DecisionRecord[] {
  const text = formText(form)
  const [a, b, c] = thirds(`${variant}: ${text}`)
  const request = (n: number, content: string) => ({
    api: 'openai-chat',
    method: 'POST',
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: `You configure the billing service (${variant}). ${text}` },
        { role: 'user', content: `Request ${n}: ${content}` },
      ],
    },
  })
  return [
    {
      seq: 1,
      key: key('tool', 1),
      kind: 'tool',
      step: 0,
      ms: 1,
      in: { name: 'configure', args: [{ settings: form.value, variant }] },
      out: { config: form.value },
    },
    {
      seq: 2,
      key: key('llm', variant === 'recording' ? 2 : 20),
      kind: 'llm',
      step: 1,
      ms: 5,
      in: request(1, text),
      out: {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: { sse: [chunk(a!, 1), chunk(b!, 2), chunk(c!, 3), { t: 4, data: '[DONE]' }] },
      },
    },
    {
      seq: 3,
      key: key('tool', 3),
      kind: 'tool',
      step: 1,
      ms: 2,
      in: { name: 'connect', args: [{ service: 'billing' }] },
      err: { name: 'Error', message: `could not connect: ${text}` },
    },
    {
      seq: 4,
      key: key('http', 4),
      kind: 'http',
      step: 1,
      ms: 2,
      in: { method: 'GET', url: 'https://files.example.com/settings' },
      out: {
        status: 200,
        headers: { 'content-type': 'application/octet-stream' },
        body: { base64: Buffer.from(`${variant}\n${text}`).toString('base64') },
      },
    },
    {
      seq: 5,
      key: key('llm', 5),
      kind: 'llm',
      step: 2,
      ms: 4,
      in: request(2, 'apply the settings'),
      out: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: {
          json: {
            choices: [
              {
                index: 0,
                finish_reason: 'tool_calls',
                message: {
                  role: 'assistant',
                  content: text,
                  tool_calls: [
                    {
                      id: 'call_1',
                      type: 'function',
                      function: { name: 'apply', arguments: JSON.stringify({ settings: form.value }) },
                    },
                  ],
                },
              },
            ],
            usage: { prompt_tokens: 90, completion_tokens: 9, total_tokens: 99 },
          },
        },
      },
    },
  ]
}

function cassette(form: SecretForm, variant: string, list: DecisionRecord[]): Cassette {
  return {
    header: {
      agentTape: 2,
      keyScheme: 1,
      test: `test/billing.test.ts > ${variant} ${formText(form)}`,
      recordedAt: '2026-01-01T00:00:00.000Z',
    },
    decisions: list,
  }
}

/** The recording, a changed recording and a diverged run, each holding `form` everywhere. */
export function secretCassettes(form: SecretForm): SecretCassettes {
  const recording = decisions(form, 'recording')
  const changed = decisions(form, 'changed')
  // Kept as the runner kit keeps a run: what replayed, then the miss with its input and no answer.
  const missed = { ...changed[1]!, ms: 0 }
  delete missed.out
  return {
    recording: cassette(form, 'recording', recording),
    changed: cassette(form, 'changed', changed),
    run: cassette(form, 'recording', [recording[0]!, missed]),
  }
}
