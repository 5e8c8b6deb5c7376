import { createHash } from 'node:crypto'
import type { Cassette, DecisionRecord } from '@agent-tape/core/internal'
import { describe, expect, it } from 'vitest'
import { PAGE_SCRIPT } from './page/page-assets.generated.js'
import type { PageData } from './page-data.js'
import { escapeHtml, renderCompareView, renderRunView, scriptJson } from './render-page.js'
import { EXTEND_KEY, resolveShared } from './shared-values.js'

const HOSTILE = '</script><img src=x onerror="alert(1)"><!-- & </SCRIPT>'

function cassette(
  decisions: Omit<DecisionRecord, 'seq' | 'key' | 'ms'>[],
  test = 'test/a.test.ts > a',
): Cassette {
  return {
    header: { agentTape: 1, keyScheme: 1, test, recordedAt: '2026-01-01T00:00:00.000Z' },
    decisions: decisions.map((d, i) => ({
      seq: i + 1,
      key: `${d.kind}:${String(i).padStart(16, '0')}`,
      ms: 5,
      ...d,
    })) as DecisionRecord[],
  }
}

const chat = (content: string, answer = 'ok') => ({
  kind: 'llm',
  step: 1,
  in: {
    api: 'openai-chat',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [{ role: 'user', content }] },
  },
  out: {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: { json: { choices: [{ message: { role: 'assistant', content: answer }, finish_reason: 'stop' }] } },
  },
})

/** The data a page embeds, read back as the page's script reads it. */
function embedded(html: string): PageData {
  const match = /<script type="application\/json" id="agent-tape-data">([\s\S]*?)<\/script>/.exec(html)
  if (!match) throw new Error('no data in the page')
  return JSON.parse(match[1]!) as PageData
}

describe('the page', () => {
  it('keeps a hostile prompt inside its JSON, as text: no tag of it reaches the HTML', () => {
    const html = renderRunView({ file: 'a.jsonl', cassette: cassette([chat(HOSTILE, HOSTILE)], HOSTILE) })
    expect(html).not.toContain('<img')
    expect(html).not.toContain('<!--')
    expect(html.match(/<\/script>/gi)).toHaveLength(2)
    expect(html.match(/<script/gi)).toHaveLength(2)
    expect(html).toContain(`<title>${escapeHtml(HOSTILE)} · agent-tape</title>`)
    const data = embedded(html)
    expect(data.title).toBe(HOSTILE)
    expect(data.sides[0]!.cards[0]!.model!.request.last).toEqual({ role: 'user', text: HOSTILE })
    expect(data.sides[0]!.cards[0]!.model!.answer!.text).toBe(HOSTILE)
  })

  it('keeps every key of a recorded value, `__proto__` included', () => {
    const args = JSON.parse('{"__proto__":{"polluted":true},"constructor":"x","n":1}')
    const run = cassette([{ kind: 'tool', step: 1, in: { name: 'merge', args: [args] }, out: args }])
    const data = embedded(renderRunView({ file: 'a.jsonl', cassette: run }))
    const card = data.sides[0]!.cards[0]!
    expect(resolveShared(card.whole.in, data.shared)).toEqual({ name: 'merge', args: [args] })
    expect(Object.keys(resolveShared(card.whole.out, data.shared) as object)).toEqual([
      '__proto__',
      'constructor',
      'n',
    ])
  })

  it('escapes every character that could end or change a script element', () => {
    expect(scriptJson({ s: '</script><!--&\u2028' })).toBe(
      '{"s":"\\u003c/script\\u003e\\u003c!--\\u0026\\u2028"}',
    )
    expect(JSON.parse(scriptJson({ s: HOSTILE }))).toEqual({ s: HOSTILE })
  })

  it('masks secrets as the CLI prints them: shapes, and the values of secret-like variables', () => {
    const key = `sk-proj-${'Xk9pQ2vL7mR4tY8w'.repeat(3)}`
    const token = 'tok-8f3a9c2e7b1d4f60'
    const html = renderRunView(
      { file: 'a.jsonl', cassette: cassette([chat(`my key is ${key}`, `the token is ${token}`)]) },
      { env: { BILLING_TOKEN: token } },
    )
    expect(html).not.toContain(key)
    expect(html).not.toContain(token)
    expect(html).toContain('my key is [REDACTED:')
    expect(html).toContain('the token is [REDACTED:env:BILLING_TOKEN]')
  })

  it('allows no request and no script but its own, by its content security policy', () => {
    const html = renderRunView({ file: 'a.jsonl', cassette: cassette([chat('hi')]) })
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1]
    const hash = createHash('sha256').update(PAGE_SCRIPT).digest('base64')
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain(`script-src 'sha256-${hash}'`)
    expect(html).toContain(`<script>${PAGE_SCRIPT}</script>`)
    expect(html).not.toMatch(/\b(?:src|href)="(?!data:)/)
  })

  it('stores a conversation resent with every request once', () => {
    const history = Array.from({ length: 50 }, (_, i) => ({
      role: 'user',
      content: `message ${i} ${'x'.repeat(300)}`,
    }))
    const requests = history.map((_, i) => {
      const d = chat('')
      d.step = i + 1
      d.in.body.messages = history.slice(0, i + 1)
      return d
    })
    const whole = JSON.stringify(requests).length
    const data = embedded(renderRunView({ file: 'a.jsonl', cassette: cassette(requests) }))
    expect(JSON.stringify(data).length).toBeLessThan(whole / 4)
    // Each message's text once (its message and the card's last message use it); from the third
    // request on, its messages as the list of the request before and the message it adds, the
    // last request's written in place, as no request extends it (the second list whole, the first
    // too short to be worth a reference); the recorded answer, the same in every response. What
    // is used once (each request, the first one's body) is written in place.
    const extensions = data.shared.filter((e) => Object.keys(e ?? {}).join() === EXTEND_KEY)
    expect(data.shared.filter((e) => typeof e === 'string')).toHaveLength(50)
    expect(extensions).toHaveLength(47)
    expect(data.shared).toHaveLength(50 + 1 + 47 + 1)
    expect(resolveShared(data.sides[0]!.cards[49]!.whole.in, data.shared)).toEqual(requests[49]!.in)
  })

  it("places each card on the recording's time axis, where the cassette says when its decision began", () => {
    const timed = cassette([chat('a'), chat('b'), chat('c')])
    timed.decisions[0]!.at = 0
    timed.decisions[1]!.at = 5
    timed.decisions[2]!.at = 1250
    const cards = embedded(renderRunView({ file: 'a.jsonl', cassette: timed })).sides[0]!.cards
    expect(cards.map((c) => [c.at, c.ms])).toEqual([
      [0, 5],
      [5, 5],
      [1250, 5],
    ])
    // A cassette recorded before decisions had a start time: the cards have none.
    const old = embedded(renderRunView({ file: 'a.jsonl', cassette: cassette([chat('a')]) })).sides[0]!.cards
    expect(old[0]).not.toHaveProperty('at')
  })

  it('draws with a script the browser can parse', () => {
    expect(() => new Function(PAGE_SCRIPT)).not.toThrow()
  })
})

describe('two runs side by side', () => {
  const tool = (args: unknown, out: unknown, step = 1) => ({
    kind: 'tool',
    step,
    in: { name: 'lookup', args: [args] },
    out,
  })

  it('gives each aligned decision a verdict and names the fields that changed', () => {
    const before = cassette([chat('hello'), tool('A', 'a'), chat('bye', 'done'), tool('C', 'c', 2)])
    const after = cassette([chat('hello!'), tool('A', 'a'), chat('bye', 'finished'), tool('D', 'd', 3)])
    const data = embedded(renderCompareView({ file: 'a', cassette: before }, { file: 'b', cassette: after }))
    expect(data.rows!.map((r) => [r.verdict, r.fields])).toEqual([
      ['changed input', ['messages']],
      ['same', []],
      ['changed answer', ['text']],
      ['changed input', ['args', 'position', 'result']],
    ])
    expect(data.rows![0]!.edits).toEqual([
      {
        path: 'body.messages[0].content',
        name: 'message 1 (user)',
        change: 'changed',
        rows: [
          [
            [[0, 'hello']],
            [
              [0, 'hello'],
              [1, '!'],
            ],
          ],
        ],
      },
    ])
    expect(data.verdict).toBe('4 → 4 decisions: 3 changed, 0 added, 0 removed, 1 unchanged')
  })

  it('marks where a run missed and what it never reached', () => {
    const recording = cassette([tool('A', 'a'), chat('hello'), tool('B', 'b'), chat('bye')])
    const run = cassette([tool('A', 'a'), { ...chat('hello, again'), out: undefined }])
    run.decisions[1]!.key = 'llm:ffffffffffffffff'
    const data = embedded(
      renderCompareView({ file: 'rec', cassette: recording }, { file: 'run', cassette: run }, { run: true }),
    )
    expect(data.sides.map((s) => s.role)).toEqual(['recording', 'run'])
    expect(data.rows!.map((r) => r.verdict)).toEqual(['same', 'missed', 'not reached', 'not reached'])
    expect(data.rows![1]!.output).toEqual([])
    expect(data.sides[1]!.cards[1]!.missed).toBe(true)
    expect(data.verdict).toBe(
      'diverged at decision #2 (step 1): 1 the same, 1 missed, 0 changed, 0 added, 2 not reached of 4 recorded',
    )
  })
})

describe('the changes of a decision', () => {
  const conversation = (...messages: { role: string; content: string }[]) => ({
    ...chat(''),
    in: { ...chat('').in, body: { model: 'gpt-4o', messages } },
  })
  const system = { role: 'system', content: 'You are terse.' }
  const user = { role: 'user', content: 'Weather in Paris?' }
  const edits = (before: object, after: object) =>
    embedded(
      renderCompareView(
        { file: 'a', cassette: cassette([before as never]) },
        { file: 'b', cassette: cassette([after as never]) },
        { env: {} },
      ),
    ).rows![0]!.edits.map(({ name, path, change }) => [name, path, change])

  it('calls an inserted message inserted and a removed one removed, counted from 1 beside its path', () => {
    const extra = { role: 'user', content: 'And in Lyon?' }
    expect(edits(conversation(system, user), conversation(system, extra, user))).toEqual([
      ['message 2 (user)', 'body.messages[1]', 'inserted'],
    ])
    expect(edits(conversation(system, extra, user), conversation(system, user))).toEqual([
      ['message 2 (user)', 'body.messages[1]', 'removed'],
    ])
    expect(
      edits(conversation(system, user), conversation({ ...system, content: 'You are kind.' }, user)),
    ).toEqual([['message 1 (system)', 'body.messages[0].content', 'changed']])
  })

  it("names a tool's changed argument, and a changed tool of the request", () => {
    const tool = (args: unknown) => ({
      kind: 'tool',
      step: 1,
      in: { name: 'lookup', args: [args] },
      out: 'x',
    })
    expect(edits(tool({ city: 'Paris', units: 'metric' }), tool({ city: 'Lyon', units: 'metric' }))).toEqual([
      ['argument city', 'args[0].city', 'changed'],
    ])
    const offering = (description: string) => ({
      ...chat('hi'),
      in: {
        ...chat('hi').in,
        body: {
          model: 'gpt-4o',
          messages: [user],
          tools: [{ type: 'function', function: { name: 'search', description } }],
        },
      },
    })
    expect(edits(offering('Searches the web'), offering('Searches the docs'))).toEqual([
      ['tool 1 (search)', 'body.tools[0].function.description', 'changed'],
    ])
  })

  it('masks a secret before the words are compared, so no piece of it is left between two marks', () => {
    const key = (tail: string) => `sk-proj-${'Q7vR2mK9xT4wL8nB3cF6hJ1pZ5sD0gY'}${tail}`
    const html = renderCompareView(
      { file: 'a', cassette: cassette([chat(`use ${key('Ab3dE9fG2h')} now`)]) },
      { file: 'b', cassette: cassette([chat(`use ${key('Xy7kL4mN8q')} now`)]) },
      { env: {} },
    )
    expect(html).not.toContain('Q7vR2mK9xT4wL8nB3cF6hJ1pZ5sD0gY')
    expect(html).not.toContain('Ab3dE9fG2h')
    expect(html).not.toContain('Xy7kL4mN8q')
    expect(html).toContain('[REDACTED')
  })
})

describe('the head of a side', () => {
  it("shows the recording's cost by model at its prices, and the paths its keys ignored", () => {
    const priced = (model: string, input: number, output: number) => {
      const d = chat('Weather?')
      return {
        ...d,
        in: { ...d.in, body: { ...d.in.body, model } },
        out: {
          ...d.out,
          body: { json: { ...d.out.body.json, usage: { prompt_tokens: input, completion_tokens: output } } },
        },
      }
    }
    const recording = cassette([priced('gpt-4o', 1000, 100), priced('my-local-model', 10, 1)])
    recording.header.ignore = ['body.trace_id']
    const head = embedded(renderRunView({ file: 'a.jsonl', cassette: recording })).sides[0]!.header
    // gpt-4o: 1,000 in at $2.50 per million, 100 out at $10. A model the table does not know has no price.
    expect(head.cost).toBe('$0.0035 + no price for my-local-model (gpt-4o $0.0035, my-local-model no price)')
    expect(head.ignored).toBe('body.trace_id (left out of every key; stored, redacted)')
    // The page's head lists both rows (page/page-script.ts, as compiled into the page).
    expect(PAGE_SCRIPT).toMatch(/\['cost', h\.cost\],\s*\['ignored', h\.ignored\]/)
  })
})
