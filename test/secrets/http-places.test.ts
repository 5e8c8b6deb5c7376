import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { runWithTape } from '@agent-tape/core'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import { installHttpBoundary } from '@agent-tape/http'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSecretChecks } from '../support/secret-checks.js'
import { SECRET_CORPUS, type SecretSample } from '../support/secret-corpus.js'

// Every place a secret can travel through real HTTP, with the real fetch, node:http and openai
// SDK against loopback servers: what is sent is never written, what comes back is refused.
const boundary = installHttpBoundary()
const { recording, expectRefused, expectClean } = createSecretChecks('secret-http')
let current: SecretSample = SECRET_CORPUS[0]!
let server: http.Server
let origin = ''
let provider: FakeProvider
let openai: OpenAI
let splitAt = 1

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    req.resume()
    if (path === '/answer') return json(res, { answer: `Your key is ${current.text}` })
    if (path === '/binary') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      return res.end(
        Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from(current.text), Buffer.from([0xc3])]),
      )
    }
    if (path === '/header') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': current.text })
      return res.end('{}')
    }
    if (path === '/location') {
      const location = `https://app.example.com/callback?access_token=${encodeURIComponent(current.secret)}&state=7`
      res.writeHead(200, { 'content-type': 'application/json', location })
      return res.end('{}')
    }
    json(res, { ok: true })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  provider = await startFakeProvider({
    reply: () => ({
      text: [`Here: ${current.text.slice(0, splitAt)}`, `${current.text.slice(splitAt)} (keep it safe)`],
    }),
  })
  boundary.addModelEndpoints(origin, provider.url)
  openai = new OpenAI({ apiKey: 'test-key', baseURL: provider.openaiBaseURL, maxRetries: 0 })
})
afterAll(async () => {
  server.closeAllConnections()
  server.close()
  await provider.close()
})

function json(res: http.ServerResponse, body: unknown) {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

function nodeGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
      .on('error', reject)
  })
}

/** Runs `fn` while recording over a previous cassette; returns the tape and its file. */
async function record(name: string, fn: () => Promise<unknown>) {
  const taped = await recording(`${current.id}-${name}`)
  await runWithTape(taped.tape, fn)
  return taped
}

describe.each(SECRET_CORPUS.map((s) => [s.id, s] as const))('%s', (_, sample) => {
  beforeAll(() => {
    current = sample
  })

  it('is never written from request headers, the query, the URL credentials, a form or a JSON body', async () => {
    const { secret, text } = sample
    const sent: [string, () => Promise<unknown>][] = [
      [
        'query',
        () =>
          fetch(
            `${origin}/echo?api_key=${encodeURIComponent(secret)}&client_secret=${encodeURIComponent(secret)}&X-Amz-Signature=${encodeURIComponent(secret)}&note=${encodeURIComponent(text)}&page=2`,
          ),
      ],
      [
        'form',
        () =>
          fetch(`${origin}/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              client_secret: secret,
              note: text,
            }),
          }),
      ],
      [
        'json',
        () =>
          fetch(`${origin}/notes`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ title: 'config', body: `Use ${text} for the deploy` }),
          }),
      ],
      ['userinfo', () => nodeGet(`${origin.replace('//', `//deploy:${encodeURIComponent(secret)}@`)}/echo`)],
    ]
    // A header value cannot hold a line break: key blocks travel in bodies.
    if (!/[\r\n]/.test(text)) {
      sent.push([
        'headers',
        () =>
          fetch(`${origin}/echo`, {
            headers: {
              authorization: `Bearer ${secret}`,
              'x-api-key': secret,
              'x-note': text,
              cookie: `session=${secret}`,
            },
          }),
      ])
    }
    for (const [name, fn] of sent) {
      const { tape, file } = await record(name, fn)
      const state = await tape.finish()
      expect(state.recorded, name).toBe(1)
      expectClean(file, sample)
    }
  })

  it('refuses an answer holding it: JSON, a binary body, a response header', async () => {
    const { tape, file } = await record('answer', () => fetch(`${origin}/answer`).then((r) => r.json()))
    await expectRefused(tape, file, sample, 'out.body.json.answer')
    const binary = await record('binary', () => fetch(`${origin}/binary`).then((r) => r.arrayBuffer()))
    await expectRefused(binary.tape, binary.file, sample, 'out.body.base64 (base64-decoded)')
    if (/[\r\n]/.test(sample.text)) return
    const header = await record('header', () => fetch(`${origin}/header`).then((r) => r.text()))
    await expectRefused(header.tape, header.file, sample, 'out.headers["x-request-id"]')
  })

  it('writes a redirect location without the token in its query', async () => {
    const { tape, file } = await record('location', () => fetch(`${origin}/location`).then((r) => r.text()))
    await tape.finish()
    expect(expectClean(file, sample)).toContain('access_token=REDACTED&state=7')
  })

  it('refuses an openai stream that splits it between deltas', async () => {
    const length = sample.text.length
    for (const at of new Set([1, Math.floor(length / 3), Math.floor(length / 2), length - 1])) {
      splitAt = at
      const { tape, file } = await record(`stream-${at}`, async () => {
        const stream = await openai.chat.completions.create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'What is the key?' }],
          stream: true,
        })
        let answer = ''
        for await (const chunk of stream) answer += chunk.choices[0]?.delta.content ?? ''
        return answer
      })
      await expectRefused(
        tape,
        file,
        sample,
        'out.body.sse[*].choices[]{index=0}.delta.content (reassembled from',
      )
    }
  })
})
