/**
 * Scenario 10: deep patch chains. A run of N model requests, each appending one message to the
 * history the one before sent (cassette format 2 stores each as a one-message patch over the
 * one before), opened for replay, finished with every decision unused (the run summary labels
 * each one), scanned for secrets, and checked by `agent-tape verify`; and the last input rebuilt.
 * Each in fresh processes: time, and memory next to the file's size. Linear is the aim: ten times
 * the messages, ten times the time and memory.
 */
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { median, spread } from '../lib/stats.mjs'

const run = promisify(execFile)
const CHILD = new URL('../lib/chain-child.mjs', import.meta.url).pathname
export const CHAIN_LENGTHS = [10_000, 50_000, 100_000]
export const CHAIN_OPERATIONS = ['load', 'replay', 'scan', 'verify', 'last']

export async function patchChain({ dir, config }) {
  const lengths = config.quick ? [10_000] : CHAIN_LENGTHS
  const repeat = config.quick ? 1 : 3
  const out = []
  for (const messages of lengths) {
    const path = join(dir, `chain-${messages}.jsonl`)
    const bytes = writeChain(path, messages)
    const empty = await measure('empty', path, messages, repeat)
    const operations = {}
    for (const operation of CHAIN_OPERATIONS) {
      const runs = await measure(operation, path, messages, repeat)
      operations[operation] = {
        time: { median: median(runs.map((r) => r.ms)), spread: spread(runs.map((r) => r.ms)) },
        retainedHeap: median(runs.map((r) => r.retainedHeap)),
        peakRss: median(runs.map((r) => r.rssGrowth)) - median(empty.map((r) => r.rssGrowth)),
      }
    }
    out.push({ messages, bytes, operations })
  }
  return out
}

async function measure(operation, path, messages, repeat) {
  const runs = []
  for (let i = 0; i < repeat; i++) {
    const args = ['--expose-gc', '--max-old-space-size=4096', CHILD, operation, path, String(messages)]
    runs.push(JSON.parse((await run(process.execPath, args, { encoding: 'utf8' })).stdout))
  }
  return runs
}

/**
 * The cassette a recording of such a run writes: a first request with a system prompt and one
 * message, whole; then each request as the message it appends; each answer a short JSON reply.
 */
function writeChain(path, messages) {
  const lines = [
    JSON.stringify({ agentTape: 2, keyScheme: 1, test: 'chain', recordedAt: '2026-01-01T00:00:00.000Z' }),
  ]
  const message = (i) => ({ role: i % 2 ? 'user' : 'assistant', content: `Message ${i}: noted, carry on.` })
  const answer = (i) => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: { json: { id: `r${i}`, choices: [{ message: { role: 'assistant', content: `Step ${i}.` } }] } },
  })
  const key = (i) => `llm:${i.toString(16).padStart(16, '0')}`
  const first = {
    api: 'openai-chat',
    method: 'POST',
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o',
      messages: [{ role: 'system', content: 'You take notes. '.repeat(80) }, message(1)],
    },
  }
  lines.push(JSON.stringify({ seq: 1, key: key(1), kind: 'llm', step: 1, ms: 1, in: first, out: answer(1) }))
  for (let i = 2; i <= messages; i++) {
    const patch = [{ op: 'add', path: '/body/messages/-', value: message(i) }]
    lines.push(
      JSON.stringify({
        seq: i,
        key: key(i),
        kind: 'llm',
        step: i,
        ms: 1,
        base: i - 1,
        patch,
        out: answer(i),
      }),
    )
  }
  const text = `${lines.join('\n')}\n`
  writeFileSync(path, text)
  return Buffer.byteLength(text)
}
