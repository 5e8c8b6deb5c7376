/** Scenario 4: load and index a 10,000-decision cassette; time and peak memory, in fresh processes. */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { openTape } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { measureFreshLoad } from '../lib/fresh-load.mjs'

export const DECISIONS = 10_000

export async function cassetteLoad({ dir, config }) {
  const path = join(dir, 'agent-tape', 'load-10000.jsonl')
  await writeLargeCassette(path)
  const measured = await measureFreshLoad({
    tool: 'agent-tape',
    path,
    expected: DECISIONS,
    // 20 fresh processes: the spread of a fresh load is part of the result (see fresh-load.mjs).
    repeat: config.quick ? 2 : 20,
  })
  return { decisions: DECISIONS, bytes: statSync(path).size, ...measured }
}

/** Half model requests (a short conversation and its answer), half tool calls, as a run records them. */
async function writeLargeCassette(path) {
  const tape = await openTape({
    id: 'load',
    cassettePath: path,
    store: createFileStore(),
    mode: 'update',
    env: {},
  })
  for (let i = 0; i < DECISIONS / 2; i++) {
    const input = {
      api: 'openai-chat',
      method: 'POST',
      path: '/v1/chat/completions',
      body: {
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'You look records up.' },
          { role: 'user', content: `Look up record ${i} and tell me whether it was refunded.` },
        ],
      },
    }
    const answer = {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: {
        json: {
          id: `chatcmpl-${i}`,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: `call_${i}`,
                    type: 'function',
                    function: { name: 'lookup', arguments: `{"n":${i}}` },
                  },
                ],
              },
              finish_reason: 'tool_calls',
            },
          ],
          usage: { prompt_tokens: 40, completion_tokens: 9 },
        },
      },
    }
    await tape.call('llm', input, () => answer)
    await tape.tool('lookup', [{ n: i }], () => `Record ${i}: refunded on 2 May.`)
  }
  await tape.finish()
}
