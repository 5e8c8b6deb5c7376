import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { runBin } from './support/bin.js'

// The built bin is run, not `main` in this process: how deep a walk goes before the stack
// overflows is a property of the process (its stack size and what is already on it).
it('reports a cassette nested 10,000 levels deep instead of crashing: verify as a problem, show as unreadable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-cli-deep-'))
  const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`
  writeFileSync(
    join(dir, 'deep.jsonl'),
    `{"agentTape":1,"keyScheme":1,"test":"t","recordedAt":""}\n{"seq":1,"key":"tool:0123456789abcdef","kind":"tool","step":0,"ms":1,"in":{"name":"x"},"out":${deep}}\n`,
  )
  const verify = runBin(['verify', 'deep.jsonl'], dir)
  expect(verify.code).toBe(1)
  expect(verify.stdout).toContain(
    'FAIL  deep.jsonl  a decision is nested too deeply to scan for secrets (the JavaScript stack overflowed); re-record it, or restore the file from version control',
  )
  const show = runBin(['show', 'deep.jsonl'], dir)
  expect(show.code).toBe(2)
  expect(show.stderr).toMatch(
    /^\[agent-tape\] agent-tape show cannot read its input: a decision in it is nested deeper than agent-tape can walk \(the JavaScript stack overflowed: Maximum call stack size exceeded\)\. Restore the cassette from version control, or re-record its test\.\n$/,
  )
})
