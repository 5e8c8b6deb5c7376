import { readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { isSecretLeakError, openTape, runWithTape, tapeMcpTransport } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createSecretChecks, PREVIOUS } from '../support/secret-checks.js'
import {
  formText,
  printedPieces,
  SECRET_FORMS,
  type SecretForm,
  writtenPieces,
} from '../support/secret-forms.js'

// Every secret form through the real SDKs and the HTTP and MCP boundaries: in what a provider
// answers (tool-call arguments streamed and not, streamed text) the write is refused; in what
// the run sends (a JSON body, a form, a query, an MCP tool's arguments) it is written redacted.
const boundary = installHttpBoundary()
const { dir } = createSecretChecks('secret-sdk-places')
const store = createFileStore(dir)
let current: SecretForm = SECRET_FORMS[0]!
let provider: FakeProvider
let server: http.Server
let origin = ''

/** The form as a model's tool-call arguments: a JSON text, as the wire carries them. */
const argsText = (form: SecretForm) => {
  const text = formText(form)
  return typeof form.value === 'string' && !text.trimStart().startsWith('{')
    ? JSON.stringify({ v: text })
    : text
}
/** The form as an arguments object, for providers that send arguments as JSON values. */
const argsObject = (form: SecretForm) => {
  if (typeof form.value !== 'string') return form.value
  try {
    return JSON.parse(form.value)
  } catch {
    return { v: form.value }
  }
}

beforeAll(async () => {
  provider = await startFakeProvider({
    reply: (request) => {
      const asks = JSON.stringify(request.body)
      if (asks.includes('write it out'))
        return { text: [`Here: ${formText(current).slice(0, 9)}`, formText(current).slice(9)] }
      if (request.endpoint?.startsWith('gemini'))
        return { toolCalls: [{ name: 'save', args: argsObject(current) }] }
      return { toolCalls: [{ name: 'save', args: argsText(current) }] }
    },
  })
  server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  boundary.addModelEndpoints(provider.url, origin)
})
afterAll(async () => {
  await boundary.dispose()
  server.closeAllConnections()
  server.close()
  await provider.close()
})

const openai = () => new OpenAI({ apiKey: 'sk-test-dummy', baseURL: provider.openaiBaseURL, maxRetries: 0 })
const tools = [{ type: 'function' as const, function: { name: 'save', parameters: { type: 'object' } } }]

async function mcp(form: SecretForm, send: boolean) {
  const mcpServer = new McpServer({ name: 'config', version: '1.0.0' })
  mcpServer.registerTool('read_config', { inputSchema: { note: z.string() } }, () => ({
    content: [{ type: 'text', text: send ? 'ok' : formText(form) }],
  }))
  const [client, served] = InMemoryTransport.createLinkedPair()
  await mcpServer.connect(served)
  const agent = new Client({ name: 'agent', version: '1.0.0' })
  await agent.connect(tapeMcpTransport(client, { server: 'config' }))
  await agent.callTool({ name: 'read_config', arguments: { note: send ? formText(form) : 'all' } })
  await agent.close()
}

interface SdkPlace {
  name: string
  side: 'in' | 'out'
  run(form: SecretForm): Promise<unknown>
}

const SDK_PLACES: SdkPlace[] = [
  {
    name: 'openai tool-call arguments',
    side: 'out',
    run: () =>
      openai().chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'save it' }],
        tools,
      }),
  },
  {
    name: 'openai streamed tool-call arguments',
    side: 'out',
    run: async () => {
      const stream = await openai().chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'save it' }],
        tools,
        stream: true,
      })
      for await (const _ of stream);
    },
  },
  {
    name: 'openai streamed text',
    side: 'out',
    run: async () => {
      const stream = await openai().chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'write it out' }],
        stream: true,
      })
      for await (const _ of stream);
    },
  },
  {
    name: 'anthropic streamed tool input',
    side: 'out',
    run: async () => {
      const client = new Anthropic({
        apiKey: 'sk-ant-test-dummy',
        baseURL: provider.anthropicBaseURL,
        maxRetries: 0,
      })
      const stream = client.messages.stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'save it' }],
        tools: [{ name: 'save', input_schema: { type: 'object' } }],
      })
      await stream.finalMessage().catch(() => undefined)
    },
  },
  {
    name: 'gemini function-call arguments',
    side: 'out',
    run: () =>
      new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: provider.url } }).models.generateContent({
        model: 'gemini-2.5-flash',
        contents: 'save it',
      }),
  },
  { name: 'an MCP tool result', side: 'out', run: (form) => mcp(form, false) },
  { name: 'MCP tool arguments', side: 'in', run: (form) => mcp(form, true) },
  {
    name: 'a JSON request body',
    side: 'in',
    run: (form) =>
      fetch(`${origin}/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'config', settings: form.value }),
      }).then((r) => r.text()),
  },
  {
    name: 'a form body',
    side: 'in',
    run: (form) =>
      fetch(`${origin}/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ title: 'config', settings: formText(form) }),
      }).then((r) => r.text()),
  },
  {
    name: 'a query parameter',
    side: 'in',
    run: (form) =>
      fetch(`${origin}/search?q=${encodeURIComponent(formText(form))}&page=2`).then((r) => r.text()),
  },
]

describe.each(SECRET_FORMS.map((f) => [f.class, f.id, f] as const))('%s: %s', (_, id, form) => {
  it.each(SDK_PLACES.map((p) => [p.name, p] as const))('in %s', async (name, place) => {
    current = form
    const cassette = `${id}-${name.replace(/\W+/g, '-')}.jsonl`
    writeFileSync(join(dir, cassette), PREVIOUS)
    const tape = await openTape({ id, cassettePath: cassette, store, mode: 'update', env: form.env ?? {} })
    await runWithTape(tape, () => place.run(form))
    const error = await tape.finish().then(
      () => undefined,
      (e: unknown) => e,
    )
    const written = readFileSync(join(dir, cassette), 'utf8')
    if (place.side === 'in') {
      expect(error, String(error)).toBeUndefined()
      expect(written).not.toBe(PREVIOUS)
      expect(writtenPieces(written, form)).toEqual([])
    } else {
      expect(isSecretLeakError(error), `${id} in ${name}: the write was not refused (${String(error)})`).toBe(
        true,
      )
      expect(written).toBe(PREVIOUS)
      expect(printedPieces((error as Error).message, form)).toEqual([])
    }
  })
})
