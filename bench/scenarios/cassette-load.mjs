/** Scenario 4: load and index a 10,000-decision cassette; time and peak memory, in fresh processes. */
import { execFileSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { openTape } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { median, spread } from '../lib/stats.mjs'

export const DECISIONS = 10_000

export async function cassetteLoad({ dir, config }) {
  const path = join(dir, 'agent-tape', 'load-10000.jsonl')
  await writeLargeCassette(path)
  const child = new URL('../lib/load-child.mjs', import.meta.url).pathname
  const runs = { load: [], empty: [] }
  const repeat = config.quick ? 2 : 5
  for (let i = 0; i < repeat + 1; i++) {
    for (const what of ['load', 'empty']) {
      const out = JSON.parse(
        execFileSync(process.execPath, ['--expose-gc', child, what, path], { encoding: 'utf8' }),
      )
      if (i > 0) runs[what].push(out)
    }
  }
  const ms = runs.load.map((r) => r.ms)
  return {
    decisions: DECISIONS,
    bytes: statSync(path).size,
    load: { median: median(ms), spread: spread(ms) },
    retainedHeap: median(runs.load.map((r) => r.heapAfter - r.heapBefore)),
    peakRss: median(runs.load.map((r) => r.rssGrowth)) - median(runs.empty.map((r) => r.rssGrowth)),
  }
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
