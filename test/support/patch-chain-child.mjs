// Runs what a long run's cassette goes through on a chain of `n` appended messages (format 2
// writes each as a one-message patch over the one before), in a process of its own, and prints
// the work each step did as JSON. Work is counted, not timed: array slots copied (each input
// rebuilt copies its history's array once) and characters the secret scanner read.
//   node patch-chain-child.mjs <n> <dir>
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createCliIo, main } from '@agent-tape/cli'
import { openTape, parseCassette } from '@agent-tape/core'
import { findCassetteSecrets, SecretScanner } from '@agent-tape/core/internal'
import { createFileStore } from '@agent-tape/core/node'

const [n, dir] = [Number(process.argv[2]), process.argv[3]]
const path = join(dir, `chain-${n}.jsonl`)

let copiedSlots = 0
const slice = Array.prototype.slice
Array.prototype.slice = function (...args) {
  if (args.length === 0) copiedSlots += this.length
  return slice.apply(this, args)
}

class CountingScanner extends SecretScanner {
  scanned = 0
  matches(text) {
    this.scanned += text.length
    return super.matches(text)
  }
}

const lines = [
  JSON.stringify({ agentTape: 2, keyScheme: 1, test: 'chain', recordedAt: '2026-12-01T00:00:00.000Z' }),
]
const message = (i) => ({ role: i % 2 ? 'user' : 'assistant', content: `Message ${i}: noted.` })
const key = (i) => `llm:${i.toString(16).padStart(16, '0')}`
const out = (i) => ({ status: 200, headers: {}, body: { json: { n: i } } })
const first = {
  api: 'openai-chat',
  body: { model: 'gpt-4o', messages: [{ role: 'system', content: 'Notes. '.repeat(200) }, message(1)] },
}
lines.push(JSON.stringify({ seq: 1, key: key(1), kind: 'llm', step: 1, ms: 1, in: first, out: out(1) }))
for (let i = 2; i <= n; i++) {
  const patch = [{ op: 'add', path: '/body/messages/-', value: message(i) }]
  lines.push(
    JSON.stringify({ seq: i, key: key(i), kind: 'llm', step: i, ms: 1, base: i - 1, patch, out: out(i) }),
  )
}
const text = `${lines.join('\n')}\n`
writeFileSync(path, text)

const work = {}
const count = async (name, fn) => {
  copiedSlots = 0
  const result = await fn()
  work[name] = { copiedSlots, ...result }
}
await count('replay', async () => {
  const tape = await openTape({
    id: 'chain',
    cassettePath: path,
    store: createFileStore(),
    mode: 'replay',
    env: {},
  })
  // Every decision unused: the summary and the report label each one.
  const state = await tape.finish()
  return { unused: state.unused, labelled: state.decisions.filter((d) => d.label === 'model request').length }
})
await count('scan', async () => {
  const cassette = parseCassette(text, path)
  const scanner = new CountingScanner()
  const findings = findCassetteSecrets(cassette, scanner)
  return { findings: findings.length, scannedChars: scanner.scanned }
})
await count('verify', async () => {
  let printed = ''
  const sink = { write: (t) => (printed += t) }
  const code = await main(['verify', path], createCliIo({ stdout: sink, stderr: sink }, {}, dir))
  return { code, ok: printed.includes('1 ok') }
})
await count('last', async () => {
  const cassette = parseCassette(text, path)
  return { messages: cassette.decisions.at(-1).in.body.messages.length }
})
process.stdout.write(JSON.stringify({ bytes: text.length, work }))
