/**
 * Scenario 7: what the secret scan costs when a cassette is written. A recording is scanned once,
 * as it is written (replay never scans). Measured cold (a new scanner, nothing cached) next to
 * the write itself (serialize, write to a temporary file, fsync, rename), on the 200-step run's
 * cassette and on a cassette holding one 10 MB streamed answer.
 */
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseCassette, serializeCassette } from '@agent-tape/core'
import { findCassetteSecrets, SecretScanner } from '@agent-tape/core/internal'
import { createFileStore } from '@agent-tape/core/node'
import { median, spread } from '../lib/stats.mjs'

export const STREAM_BYTES = 10 * 1024 * 1024

export async function secretScan({ dir, runCassette, config }) {
  const cases = [
    ['the 200-step run', parseCassette(readFileSync(runCassette, 'utf8'), runCassette)],
    ['one 10 MB streamed answer', streamedAnswer()],
  ]
  const store = createFileStore()
  const out = []
  for (const [name, cassette] of cases) {
    const file = join(dir, `scan-${out.length}.jsonl`)
    const scan = []
    const write = []
    for (let i = 0; i < config.rounds.warmup + config.rounds.repeat; i++) {
      let started = performance.now()
      const findings = findCassetteSecrets(cassette, new SecretScanner())
      const scanned = performance.now() - started
      if (findings.length > 0) throw new Error(`the ${name} cassette has findings: ${findings[0].path}`)
      started = performance.now()
      await store.write(file, serializeCassette(cassette))
      const written = performance.now() - started
      if (i >= config.rounds.warmup) {
        scan.push(scanned)
        write.push(written)
      }
    }
    out.push({
      name,
      bytes: statSync(file).size,
      scan: { median: median(scan), spread: spread(scan) },
      write: { median: median(write), spread: spread(write) },
      ratio: median(scan.map((s, i) => s / write[i])),
    })
  }
  return out
}

/** A streamed chat answer of about 10 MB: 100-character deltas, as a long generation sends them. */
function streamedAnswer() {
  const events = []
  let bytes = 0
  for (let i = 0; bytes < STREAM_BYTES; i++) {
    const content = `word${i % 97} `.repeat(12).slice(0, 100)
    events.push({ t: i, json: { id: 'chatcmpl-bench', choices: [{ index: 0, delta: { content } }] } })
    bytes += 160
  }
  events.push({ t: events.length, data: '[DONE]' })
  return {
    header: { agentTape: 1, keyScheme: 1, test: 'scan', recordedAt: new Date(0).toISOString() },
    decisions: [
      {
        seq: 1,
        key: 'llm:0123456789abcdef',
        kind: 'llm',
        step: 1,
        ms: 1,
        in: {
          api: 'openai-chat',
          method: 'POST',
          path: '/v1/chat/completions',
          body: { model: 'gpt-4o', messages: [] },
        },
        out: { status: 200, headers: { 'content-type': 'text/event-stream' }, body: { sse: events } },
      },
    ],
  }
}
