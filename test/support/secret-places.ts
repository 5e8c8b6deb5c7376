import type { Tape } from '@agent-tape/core'
import { formText, type SecretForm } from './secret-forms.js'

/**
 * The places a run carries a value through its tape: what goes in (tool arguments, a request
 * body) is written redacted, what comes back (a tool's result or error, a model's answer,
 * streamed or not, and the arguments of the tools it calls) refuses the write.
 */
export interface Place {
  name: string
  /** `in`: written, redacted; `out`: the write is refused. */
  side: 'in' | 'out'
  run(tape: Tape, form: SecretForm): Promise<unknown>
}

const args = (form: SecretForm) => (typeof form.value === 'string' ? form.value : JSON.stringify(form.value))

/** A recorded model answer, as the HTTP boundary records one. */
function answer(tape: Tape, out: unknown): Promise<void> {
  const begun = tape.begin('llm', { api: 'openai-chat', body: { model: 'gpt-4o', messages: [] } })
  if (begun.action !== 'record') throw new Error('expected a recording tape')
  begun.complete({ out }, 5)
  return Promise.resolve()
}

export const thirds = (text: string) => {
  const a = Math.floor(text.length / 3)
  return [text.slice(0, a), text.slice(a, 2 * a), text.slice(2 * a)]
}

export const PLACES: Place[] = [
  {
    name: 'tool arguments',
    side: 'in',
    run: (tape, form) => tape.tool('configure', { settings: form.value }, () => 'ok'),
  },
  {
    name: 'a request body',
    side: 'in',
    run: async (tape, form) => {
      const begun = tape.begin('http', {
        method: 'POST',
        url: 'https://api.example.com/v1/settings',
        body: { json: { note: 'apply', settings: form.value } },
      })
      if (begun.action === 'record') begun.complete({ out: { status: 204, headers: {} } }, 3)
    },
  },
  {
    name: 'a tool result',
    side: 'out',
    run: (tape, form) => tape.tool('read_config', {}, () => ({ config: form.value })),
  },
  {
    name: 'a tool error',
    side: 'out',
    run: (tape, form) =>
      tape
        .tool('connect', {}, () => {
          throw new Error(`could not connect: ${formText(form)}`)
        })
        .catch(() => undefined),
  },
  {
    name: 'a model answer',
    side: 'out',
    run: (tape, form) =>
      answer(tape, {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: { json: { choices: [{ index: 0, message: { role: 'assistant', content: formText(form) } }] } },
      }),
  },
  {
    name: 'the arguments of a tool call',
    side: 'out',
    run: (tape, form) =>
      answer(tape, {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: {
          json: {
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  tool_calls: [
                    { id: 'call_1', type: 'function', function: { name: 'save', arguments: args(form) } },
                  ],
                },
              },
            ],
          },
        },
      }),
  },
  {
    name: 'streamed tool-call arguments (openai)',
    side: 'out',
    run: (tape, form) =>
      answer(tape, {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: {
          sse: [
            ...thirds(args(form)).map((part, t) => ({
              t,
              json: {
                choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: part } }] } }],
              },
            })),
            { t: 4, data: '[DONE]' },
          ],
        },
      }),
  },
  {
    name: 'streamed tool input (anthropic input_json_delta)',
    side: 'out',
    run: (tape, form) =>
      answer(tape, {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: {
          sse: thirds(args(form)).map((partial_json, t) => ({
            t,
            event: 'content_block_delta',
            json: {
              type: 'content_block_delta',
              index: 1,
              delta: { type: 'input_json_delta', partial_json },
            },
          })),
        },
      }),
  },
  {
    name: 'a streamed answer (anthropic text)',
    side: 'out',
    run: (tape, form) =>
      answer(tape, {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: {
          sse: thirds(formText(form)).map((text, t) => ({
            t,
            event: 'content_block_delta',
            json: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
          })),
        },
      }),
  },
]
