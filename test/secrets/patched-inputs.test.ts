import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isSecretLeakError, openTape, type Redactor, runWithTape, type Tape } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../cli/support/cli.js'

// Format 2 writes a step's input as a patch over the step before: a secret is in one line only,
// wherever in the run it entered the history. The scan at write and `verify` must find it there.
// Recording redacts secrets from an input, an attachment in base64 (a file the agent read)
// included; what a user's redactor puts back after that is caught by the scan at write alone.
const SECRET = `sk-proj-${'Xk9pQ2vL7mR4tY8w'.repeat(3)}`
const ATTACHMENT = Buffer.from(`OPENAI_API_KEY=${SECRET}\n`).toString('base64')
const STAND_IN = 'a harmless stand-in of the same length as the key in question, kept as is'
const STEPS = 8
const AT_STEP = 6
// Long enough that every request's input is written as a patch (shorter inputs are written whole).
const TICKET = `Look up the records. ${'The customer lists every invoice of the year in the ticket. '.repeat(20)}`

type Place = 'appended message' | 'changed member' | 'base input'

/**
 * A tool loop on the openai SDK that sends its whole history at every step; `hidden` enters the
 * run at one place: a message appended at step 6, the first user message of step 6 only (step 7
 * sends it as before), or the system prompt (kept by every request, so only the first writes it).
 */
async function runAgent(openai: OpenAI, tape: Tape, place: Place, hidden: string) {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: place === 'base input' ? hidden : 'Support agent.' },
    { role: 'user', content: TICKET },
  ]
  for (let step = 1; step <= STEPS; step++) {
    if (place === 'appended message' && step === AT_STEP) messages.push({ role: 'user', content: hidden })
    messages[1] = {
      role: 'user',
      content: place === 'changed member' && step === AT_STEP ? hidden : TICKET,
    }
    const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages })
    const message = completion.choices[0]!.message
    messages.push(message)
    for (const call of message.tool_calls ?? []) {
      const n = JSON.parse((call as { function: { arguments: string } }).function.arguments).n as number
      const content = await tape.tool('lookup', [{ n }], () => `Record ${n}: paid on 2 May.`)
      messages.push({ role: 'tool', tool_call_id: call.id, content })
    }
    if (!message.tool_calls?.length) return
  }
}

const dir = mkdtempSync(join(tmpdir(), 'agent-tape-patched-secrets-'))
const boundary = installHttpBoundary()
let provider: Awaited<ReturnType<typeof startFakeProvider>>

beforeAll(async () => {
  provider = await startFakeProvider({
    seed: 'patched-secrets',
    reply: (request) => {
      const tools = (request.body.messages as { role: string }[]).filter((m) => m.role === 'tool').length
      if (tools + 1 < STEPS) return { toolCalls: [{ name: 'lookup', args: { n: tools + 1 } }] }
      return { text: `Looked up ${tools} records.` }
    },
  })
  boundary.addModelEndpoints(provider.url)
})

afterAll(async () => {
  await boundary.dispose()
  await provider.close()
})

async function record(name: string, place: Place, hidden: string, redactors: Redactor[] = []) {
  const tape = await openTape({
    id: name,
    cassettePath: `${name}.jsonl`,
    store: createFileStore(dir),
    mode: 'update',
    env: {},
    redactors,
  })
  const openai = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 })
  await runWithTape(tape, () => runAgent(openai, tape, place, hidden))
  return tape.finish().then(
    () => undefined,
    (error: unknown) => error,
  )
}

// Model requests are the odd decisions (a tool call follows each but the last): step s is #2s-1.
const PLACES: [Place, string][] = [
  ['appended message', `decision #11 (model request (gpt-4o), step 6) in.body.messages[12].content`],
  ['changed member', 'decision #11 (model request (gpt-4o), step 6) in.body.messages[1].content'],
  ['base input', 'decision #1 (model request (gpt-4o), step 1) in.body.messages[0].content'],
]

describe.each(PLACES)('a secret only in the %s', (place, where) => {
  const name = place.replaceAll(' ', '-')

  it('is redacted from the input when it comes as a base64 attachment, in the line that holds it', async () => {
    expect(await record(`${name}-redacted`, place, ATTACHMENT)).toBeUndefined()
    const text = readFileSync(join(dir, `${name}-redacted.jsonl`), 'utf8')
    expect(text).not.toContain(ATTACHMENT.slice(0, 24))
    expect(text).not.toContain(SECRET.slice(8, 24))
    expect(text.split('[REDACTED:openai-key]')).toHaveLength(2)
  })

  it('is found by the scan at write, once, in the line that holds it, and nothing is written', async () => {
    // A user's redactor runs after agent-tape's: one that puts an attachment back is caught at write.
    const error = await record(name, place, STAND_IN, [(text) => text.replace(STAND_IN, ATTACHMENT)])
    expect(isSecretLeakError(error), String(error)).toBe(true)
    const leak = error as Error & { findings: { path: string }[] }
    const at = `${where} (base64-decoded)`
    expect(leak.message).toContain(`: ${at} contains an OpenAI-style API key (sk-p… (56 chars))`)
    expect(leak.findings.map((f) => f.path)).toEqual([at])
    expect(existsSync(join(dir, `${name}.jsonl`))).toBe(false)
  })

  it('is found by agent-tape verify in the written file, at the same place', async () => {
    // The same run with a stand-in recorded, then the stand-in swapped for the key in the file:
    // what a cassette written without the scan (or edited by hand) would hold.
    expect(await record(`${name}-clean`, place, STAND_IN)).toBeUndefined()
    const file = join(dir, `${name}-clean.jsonl`)
    const text = readFileSync(file, 'utf8')
    expect(text.split(STAND_IN)).toHaveLength(2)
    expect(text).toContain('"patch":[')
    writeFileSync(file, text.replace(STAND_IN, SECRET))
    const result = await runCli(['verify', file], dir)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`secret in ${where}: an OpenAI-style API key (sk-p… (56 chars))`)
    expect(result.stdout.match(/secret in /g)).toHaveLength(1)
  })
})
