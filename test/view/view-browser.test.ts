/// <reference lib="dom" />
// The functions given to page.evaluate run in the page, where the DOM is.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseCassette, serializeCassette } from '@agent-tape/core'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../cli/support/cli.js'
import { REPO_ROOT } from '../support/fixture-project.js'
import { browserTestsSkipped, launchChromium } from './support/chromium.js'
import {
  imageDistance,
  layoutDifferences,
  measure,
  referenceLayout,
  referenceScreenshot,
} from './support/layout.js'
import {
  divergeSupportAgent,
  recordLanes,
  recordLongRun,
  recordRealtimeSession,
  SUPPORT_CASSETTE,
} from './support/pages.js'

// The pages `agent-tape view` writes, opened from disk in Debian's Chromium (driven by
// puppeteer-core): drawn, clicked, measured and compared with committed references. Any request
// a page makes other than for its own file fails the test.
const work = mkdtempSync(join(tmpdir(), 'agent-tape-view-'))
const EXAMPLES = join(REPO_ROOT, 'examples')

function exampleCassettes(): string[] {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(path)
      else if (entry.name.endsWith('.jsonl') && path.includes('/test/__cassettes__/')) found.push(path)
    }
  }
  walk(EXAMPLES)
  return found.sort()
}

/** `agent-tape view <args> -o <work>/<name>.html`, as a user runs it; returns the page's path. */
async function view(name: string, args: string[], cwd = REPO_ROOT): Promise<string> {
  const out = join(work, `${name}.html`)
  const result = await runCli(['view', ...args, '-o', out], cwd)
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  return out
}

interface Opened {
  page: Page
  /** Milliseconds from the start of navigation to the first frame painted after the page drew itself. */
  ms: number
}

describe.skipIf(browserTestsSkipped())('the HTML view in Chromium', () => {
  let browser: Browser
  const outside: string[] = []
  const errors: string[] = []

  beforeAll(async () => {
    browser = await launchChromium()
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    expect(outside, 'requests that left a page').toEqual([])
    expect(errors, 'errors in a page').toEqual([])
  })

  async function open(file: string, { width = 1280, height = 900, dark = false } = {}): Promise<Opened> {
    const page = await browser.newPage()
    await page.setViewport({ width, height, deviceScaleFactor: 1 })
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }])
    const url = pathToFileURL(file).href
    await page.setRequestInterception(true)
    page.on('request', (request) => {
      if (request.url() === url) return void request.continue()
      outside.push(`${basename(file)}: ${request.url()}`)
      void request.abort()
    })
    page.on('pageerror', (error) =>
      errors.push(`${basename(file)}: ${(error as Error).message ?? String(error)}`),
    )
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${basename(file)}: ${message.text()}`)
    })
    // A request the page's CSP blocks never reaches the network: it is reported here instead.
    await page.evaluateOnNewDocument(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(`CSP blocked ${e.blockedURI} (${e.violatedDirective})`),
      )
    })
    await page.goto(url, { waitUntil: 'load' })
    await page.waitForSelector('html[data-ready="true"]')
    const ms = await page.evaluate(
      () =>
        new Promise<number>((done) =>
          requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))),
        ),
    )
    return { page, ms }
  }

  /** Scrolls a page to its end, a screen at a time, until every block of decisions is built. */
  async function buildEveryBlock(page: Page): Promise<void> {
    for (let i = 0; i < 200 && (await page.$('.block')); i++) {
      await page.evaluate(() => window.scrollBy(0, window.innerHeight))
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
      )
    }
    expect(await page.$('.block')).toBeNull()
  }

  /** Opens a decision whole with the keyboard-free path a mouse takes: a click on its summary. */
  async function openWhole(page: Page, card: string): Promise<void> {
    await page.click(`${card} details.whole > summary`)
    await page.waitForSelector(`${card} .whole-body`, { visible: true })
  }

  it('draws every example cassette: a visible card per decision, each one opened whole on a click', async () => {
    const cassettes = exampleCassettes()
    expect(cassettes.map((c) => relative(EXAMPLES, c))).toContain(
      'support-agent/test/__cassettes__/agent.test.ts/issue-412.jsonl',
    )
    for (const cassette of cassettes) {
      const recorded = parseCassette(readFileSync(cassette, 'utf8'), cassette)
      const file = await view(basename(cassette, '.jsonl'), [relative(REPO_ROOT, cassette)])
      const { page } = await open(file)
      // The outline lists every decision at once; the cards are built as they are scrolled near.
      expect(await page.$$eval('#outline a.o', (a) => a.map((x) => x.getAttribute('href')))).toEqual(
        recorded.decisions.map((d) => `#d${d.seq}`),
      )
      await buildEveryBlock(page)
      const cards = await page.$$eval('article.card', (nodes) =>
        nodes.map((n) => ({ kind: n.getAttribute('data-kind'), height: n.getBoundingClientRect().height })),
      )
      expect(cards.map((c) => c.kind)).toEqual(recorded.decisions.map((d) => d.kind))
      expect(cards.every((c) => c.height > 40)).toBe(true)
      expect(await page.$eval('h1', (h) => h.textContent)).toBe(recorded.header.test)
      const lanes = new Set(recorded.decisions.map((d) => d.lane ?? ''))
      expect(await page.$$eval('.lane-head', (n) => n.length)).toBe(lanes.size > 1 ? lanes.size : 0)
      // The first model request, opened whole: its full request, and its answer.
      const first = recorded.decisions.find((d) => d.kind === 'llm')!
      const card = `article.card[data-seq="${first.seq}"]`
      await openWhole(page, card)
      const parts = await page.$$eval(`${card} .whole-body h5`, (h) => h.map((x) => x.textContent))
      const body = (first.in as { body: Record<string, unknown> }).body
      const messages = (body.messages ?? body.input) as unknown[]
      expect(parts).toContain(`Messages (${messages.length})`)
      if (Array.isArray(body.tools)) expect(parts).toContain(`Tools (${body.tools.length})`)
      if (body.system !== undefined || body.instructions !== undefined)
        expect(parts).toContain('System prompt')
      const out = first.out as { body: Record<string, unknown[]> }
      const stream = out.body.sse ?? out.body.ndjson
      if (stream) {
        expect(parts).toContain('Answer, reassembled from the stream')
        await page.evaluate((selector) => {
          const summaries = [...document.querySelectorAll<HTMLElement>(`${selector} .whole-body summary`)]
          summaries.find((s) => s.textContent?.includes('stream event'))?.click()
        }, card)
        await page.waitForSelector(`${card} .events li`)
        const events = await page.$$eval(`${card} .events li`, (li) => li.length)
        expect(events).toBe(stream.length)
      }
      await page.close()
    }
  }, 120_000)

  it('shows the support agent run as the README does: layout and screenshot close to the references', async () => {
    const file = await view('issue-412', [join('examples/support-agent', SUPPORT_CASSETTE)])
    const { page } = await open(file, { width: 1100, height: 760 })
    const layout = await measure(page, {
      title: 'h1',
      outline: '#outline',
      timeline: '.timeline',
      firstStep: '.step-label',
      firstCard: 'article.card',
      secondCard: 'article.card[data-seq="2"]',
    })
    expect(layoutDifferences(layout, referenceLayout('run', layout))).toEqual([])
    const shot = Buffer.from(await page.screenshot({ type: 'png' }))
    expect(await imageDistance(browser, shot, referenceScreenshot('view-run', shot))).toBeLessThan(12)
    await page.close()
  })

  it('shows a real divergence: the run next to its recording, the miss marked, the changed fields highlighted', async () => {
    const dir = join(work, 'support-agent')
    mkdirSync(dir)
    const { run } = await divergeSupportAgent(dir)
    const file = await view('divergence', [SUPPORT_CASSETTE, '--run', run], dir)
    const { page } = await open(file, { width: 1100, height: 760 })
    // The miss, then the six recorded decisions it never reached, folded to one row.
    const verdicts = await page.$$eval('#decisions .rows > li', (rows) =>
      rows.map((r) => `${r.className.split(' ')[0]} ${r.getAttribute('data-verdict')}`),
    )
    expect(verdicts).toEqual(['row missed', 'fold not reached'])
    const missed = 'li.row[data-verdict="missed"]'
    expect(await page.$eval(`${missed} .badge`, (b) => b.textContent)).toBe('missed')
    expect(await page.$eval(`${missed} .changes h5`, (h) => h.textContent)).toBe(
      'Input changed (recording → this run)',
    )
    // The change named as a reader counts, its path beside it, and its changed words marked.
    const edit = await page.$eval(`${missed} .edit`, (e) => ({
      name: e.querySelector('.edit-name strong')?.textContent,
      path: e.querySelector('.edit-name code')?.textContent,
      kind: e.querySelector('.edit-kind')?.textContent,
      del: [...e.querySelectorAll('del')].map((d) => d.textContent),
      ins: [...e.querySelectorAll('ins')].map((d) => d.textContent),
    }))
    expect(edit).toEqual({
      name: 'message 1 (system)',
      path: 'body.messages[0].content',
      kind: 'changed',
      del: ['only the duplicate payment, never the original'],
      ins: ['what they were charged'],
    })
    // Both cards highlight the field that changed; the run's card says it was never recorded.
    const highlighted = await page.$$eval(`${missed} dd.changed`, (dd) =>
      dd.map((d) => d.getAttribute('data-field')),
    )
    expect(highlighted).toEqual(['messages', 'messages'])
    expect(
      await page.$eval(`${missed} article.card.missed dd[data-field="messages"]`, (d) => d.textContent),
    ).toBe('2 messages: changed message 1 (system)')
    expect(await page.$eval(`${missed} article.card.missed .badge`, (b) => b.textContent)).toBe(
      'missed: never recorded',
    )
    // Opened whole, the run's request marks the message that changed, in the transcript.
    await openWhole(page, `${missed} article.card.missed`)
    const changed = await page.$$eval(`${missed} article.card.missed .message.changed .role`, (r) =>
      r.map((x) => x.textContent),
    )
    expect(changed).toEqual(['message 1 · system (changed)'])
    // Side by side in a wide window: a row a line pair, both sides in one grid. The switch puts
    // them one under the other, the removed line then the inserted one.
    const diff = () =>
      page.$eval(`${missed} .word-diff`, (d) => ({
        mode: d.classList.contains('split') ? 'split' : 'unified',
        lines: [...d.querySelectorAll('.line')].map((l) => l.className.replace('line', '').trim()),
        pressed: document.querySelector('.diff-mode')?.getAttribute('aria-pressed'),
      }))
    expect(await diff()).toEqual({ mode: 'split', lines: ['left', 'right'], pressed: 'true' })
    await page.click(`${missed} .diff-mode`)
    expect(await diff()).toEqual({ mode: 'unified', lines: ['left', 'right'], pressed: 'false' })
    expect(await page.$$eval(`${missed} .word-diff .sign`, (s) => s.map((x) => x.textContent))).toEqual([
      '−',
      '+',
    ])
    // The fold opens on a click, its decisions built; the outline opens with it.
    await page.click('li.fold > button.fold-toggle')
    expect(await page.$$eval('li.row[data-verdict="not reached"]', (r) => r.map((x) => x.id))).toEqual([
      'r2',
      'r3',
      'r4',
      'r5',
      'r6',
      'r7',
    ])
    expect(await page.$$eval('#outline a.o', (a) => a.map((x) => x.getAttribute('href')))).toEqual([
      '#d1',
      '#r2',
      '#r3',
      '#r4',
      '#r5',
      '#r6',
      '#r7',
    ])
    await page.close()
    const fresh = await open(file, { width: 1100, height: 900 })
    const layout = await measure(fresh.page, {
      title: 'h1',
      verdict: '.verdict-line',
      outline: '#outline',
      missedRow: missed,
      wordDiff: `${missed} .word-diff`,
      recordedCard: `${missed} .pair > :first-child`,
      runCard: `${missed} .pair > :last-child`,
    })
    expect(layoutDifferences(layout, referenceLayout('divergence', layout))).toEqual([])
    const shot = Buffer.from(await fresh.page.screenshot({ type: 'png' }))
    expect(await imageDistance(browser, shot, referenceScreenshot('view-divergence', shot))).toBeLessThan(12)
    await fresh.page.close()
  }, 60_000)

  it('puts lanes side by side, each card in the column of its lane', async () => {
    await recordLanes(work, 'lanes.jsonl')
    const { page } = await open(await view('lanes', ['lanes.jsonl'], work))
    const heads = await page.$$eval('.lane-head', (h) =>
      h.map((x) => ({ text: x.textContent, x: Math.round(x.getBoundingClientRect().x) })),
    )
    expect(heads.map((h) => h.text).sort()).toEqual(['lane lyon', 'lane paris'])
    const cards = await page.$$eval('.cell', (cells) =>
      cells.flatMap((cell) =>
        [...cell.querySelectorAll('article.card')].map(() => ({
          lane: cell.getAttribute('data-lane'),
          x: Math.round(cell.getBoundingClientRect().x),
        })),
      ),
    )
    expect(cards).toHaveLength(8)
    for (const card of cards) expect(card.x).toBe(heads.find((h) => h.text === `lane ${card.lane}`)?.x)
    await page.close()
  })

  it("shows a realtime session's messages as model exchanges, its tool call drawn as an HTTP one's", async () => {
    await recordRealtimeSession(work, 'realtime.jsonl')
    if (!existsSync(join(work, 'lanes.jsonl'))) await recordLanes(work, 'lanes.jsonl')
    const { page } = await open(await view('realtime', ['realtime.jsonl'], work))
    await buildEveryBlock(page)
    // Each card: its title, and its fields as drawn.
    const cards = await page.$$eval('article.card', (nodes) =>
      nodes.map((n) => [
        n.querySelector('.name')?.textContent,
        Object.fromEntries(
          [...n.querySelectorAll('dd[data-field]')].map((dd) => [
            dd.getAttribute('data-field'),
            dd.textContent,
          ]),
        ),
      ]),
    )
    // A response.create's card: the model the session ran, the server's events after it (the
    // frames its decision recorded), and no tools, which the session declared in session.update.
    const recorded = parseCassette(readFileSync(join(work, 'realtime.jsonl'), 'utf8'), 'realtime.jsonl')
    const responses = recorded.decisions.filter(
      (d) => (d.in as { frame: string }).frame === 'response.create',
    )
    const exchange = (n: number, fields: Record<string, string>) => ({
      model: 'gpt-realtime',
      request: 'openai-realtime websocket response.create',
      messages: '0 messages',
      answer: `streamed (${(responses[n]!.out as { frames: unknown[] }).frames.length} events) · 101`,
      finish: 'completed',
      tokens: '120 in / 30 out',
      ...fields,
    })
    expect(Math.min(...responses.map((d) => (d.out as { frames: unknown[] }).frames.length))).toBeGreaterThan(
      4,
    )
    expect(cards).toEqual([
      [
        'websocket open (openai-realtime)',
        { input: expect.stringContaining('"frame":"open"'), output: expect.any(String) },
      ],
      [
        'websocket session.update (openai-realtime)',
        { input: expect.stringContaining('"instructions":"Be brief."'), output: expect.any(String) },
      ],
      [
        'websocket conversation.item.create (openai-realtime)',
        { input: expect.stringContaining('"text":"Weather in Paris?"'), output: expect.any(String) },
      ],
      ['websocket response.create (openai-realtime)', exchange(0, { calls: 'get_weathercityParis' })],
      ['tool "get_weather"', { args: 'cityParis', result: '{"temp":21}' }],
      [
        'websocket conversation.item.create (openai-realtime)',
        { input: expect.stringContaining('"output":"{\\"temp\\":21}"'), output: expect.any(String) },
      ],
      ['websocket response.create (openai-realtime)', exchange(1, { text: 'In Paris it is 21 degrees.' })],
    ])
    // The call, as the card of a model request over HTTP asking for the same call draws it.
    const call = (p: Page) =>
      p.$$eval('dd[data-field="calls"] .call', (calls) =>
        calls.map((c) => c.outerHTML).find((html) => html.includes('Paris')),
      )
    const http = await open(await view('lanes-calls', ['lanes.jsonl'], work))
    await buildEveryBlock(http.page)
    expect(await call(page)).toBe(await call(http.page))
    expect(await call(page)).toContain('get_weather')
    await http.page.close()
    await page.close()
  })

  it('is usable with the keyboard and a screen reader: labelled cards, focus visible, Enter opens, j / k and / move', async () => {
    const file = await view('keyboard', [join('examples/support-agent', SUPPORT_CASSETTE)])
    const { page } = await open(file)
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the decisions')
    await page.keyboard.press('Enter')
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-copy'))).toBe('key')
    await page.keyboard.press('Tab')
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement
      const style = getComputedStyle(el)
      return { label: el.getAttribute('aria-label'), tag: el.tagName, outline: style.outlineStyle }
    })
    expect(focused).toEqual({ label: 'Open decision #1 whole', tag: 'SUMMARY', outline: 'solid' })
    await page.keyboard.press('Enter')
    await page.waitForSelector('article.card[data-seq="1"] .whole-body', { visible: true })
    const labels = await page.$$eval('article.card', (cards) =>
      cards.map((c) => document.getElementById(c.getAttribute('aria-labelledby') ?? '')?.textContent ?? ''),
    )
    expect(labels[0]).toBe('#1model request (gpt-4o)')
    expect(labels.every((l) => l.startsWith('#'))).toBe(true)
    // j and k go from decision to decision (from the one in focus): focused, marked, named in the
    // address and the outline.
    const where = () =>
      page.evaluate(() => ({
        focused: document.activeElement?.id,
        current: [...document.querySelectorAll('#decisions .current')].map((n) => n.id),
        hash: location.hash,
        outline: document.querySelector('#outline [aria-current]')?.getAttribute('href'),
      }))
    await page.keyboard.press('j')
    expect(await where()).toEqual({ focused: 'd2', current: ['d2'], hash: '#d2', outline: '#d2' })
    await page.keyboard.press('k')
    expect(await where()).toEqual({ focused: 'd1', current: ['d1'], hash: '#d1', outline: '#d1' })
    // / searches: the outline keeps what matches, Escape brings every decision back.
    await page.keyboard.press('/')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('filter-text')
    await page.keyboard.type('lookup_invoice')
    const found = await page.$$eval('#outline a.o', (a) => a.map((x) => x.getAttribute('href')))
    const recorded = parseCassette(
      readFileSync(join(REPO_ROOT, 'examples/support-agent', SUPPORT_CASSETTE), 'utf8'),
      SUPPORT_CASSETTE,
    )
    const mentions = recorded.decisions.filter((d) =>
      JSON.stringify([d.in, d.out]).includes('lookup_invoice'),
    )
    expect(found.length).toBeGreaterThan(0)
    expect(found.length).toBeLessThan(recorded.decisions.length)
    for (const href of found) expect(mentions.map((d) => `#d${d.seq}`)).toContain(href)
    await page.keyboard.press('Escape')
    expect(await page.$$eval('#outline a.o', (a) => a.length)).toBe(recorded.decisions.length)
    await page.close()
  })

  it('copies a key, a whole request and its answer, each with its own button', async () => {
    const cassette = join('examples/support-agent', SUPPORT_CASSETTE)
    const file = await view('copies', [cassette])
    const { page } = await open(file)
    // What the page hands the clipboard, kept where the test can read it.
    await page.evaluate(() => {
      const copied: string[] = []
      ;(window as unknown as { copied: string[] }).copied = copied
      navigator.clipboard.writeText = (text: string) => {
        copied.push(text)
        return Promise.resolve()
      }
    })
    const copied = () => page.evaluate(() => (window as unknown as { copied: string[] }).copied)
    const recorded = parseCassette(readFileSync(join(REPO_ROOT, cassette), 'utf8'), cassette)
    const first = recorded.decisions[0]!
    await page.click('#d1 button.copy[data-copy="key"]')
    await page.waitForSelector('#d1 button.copy[data-copied="true"]')
    await openWhole(page, '#d1')
    await page.click('#d1 button.copy[data-copy="request"]')
    await page.click('#d1 button.copy[data-copy="answer"]')
    const [key, request, answer] = await copied()
    expect(key).toBe(first.key)
    expect(JSON.parse(request!)).toEqual(first.in)
    expect(JSON.parse(answer!)).toEqual(first.out)
    await page.close()
  })

  it("shows a decision whole as recorded, a `__proto__` key included, never the page's own", async () => {
    const cassette = join('examples/support-agent', SUPPORT_CASSETTE)
    const recorded = parseCassette(readFileSync(join(REPO_ROOT, cassette), 'utf8'), cassette)
    const tool = recorded.decisions.find((d) => d.kind === 'tool')!
    const args = JSON.parse('{"__proto__":{"polluted":true},"constructor":"x","n":1}')
    ;(tool.in as { args: unknown[] }).args = [args]
    writeFileSync(join(work, 'proto.jsonl'), serializeCassette(recorded))
    const { page } = await open(await view('proto', [join(work, 'proto.jsonl')]))
    await openWhole(page, `#d${tool.seq}`)
    await page.click(`#d${tool.seq} .whole-body > .part:last-child summary`)
    // The recorded JSON is built when its details open (on the toggle event, after the click).
    await page.waitForSelector(`#d${tool.seq} .whole-body > .part:last-child pre`)
    const shown = await page.$eval(
      `#d${tool.seq} .whole-body > .part:last-child pre`,
      (p) => p.textContent ?? '',
    )
    expect(Object.keys(JSON.parse(shown).in.args[0])).toEqual(['__proto__', 'constructor', 'n'])
    expect(await page.evaluate(() => (({}) as Record<string, unknown>).polluted)).toBeUndefined()
    await page.close()
  })

  it('fits a narrow window in one column, and follows a dark colour scheme', async () => {
    const run = await view('narrow-run', [join('examples/support-agent', SUPPORT_CASSETTE)])
    const narrow = await open(run, { width: 390, height: 844, dark: true })
    const fit = await narrow.page.evaluate(() => ({
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      columns: getComputedStyle(document.querySelector('.timeline')!).gridTemplateColumns.split(' ').length,
      background: getComputedStyle(document.body).backgroundColor,
      text: getComputedStyle(document.body).color,
    }))
    expect(fit.overflow).toBeLessThanOrEqual(0)
    expect(fit.columns).toBe(1)
    expect(luminance(fit.background)).toBeLessThan(0.1)
    expect(luminance(fit.text)).toBeGreaterThan(0.7)
    await narrow.page.close()
    const cassette = join('examples/support-agent', SUPPORT_CASSETTE)
    const edited = parseCassette(readFileSync(join(REPO_ROOT, cassette), 'utf8'), cassette)
    const first = edited.decisions[0]!.in as { body: { messages: { content: string }[] } }
    first.body.messages[0]!.content = first.body.messages[0]!.content.replace(
      'never the original',
      'never twice',
    )
    writeFileSync(join(work, 'edited.jsonl'), serializeCassette(edited))
    const sideBySide = await open(await view('narrow-diff', [cassette, join(work, 'edited.jsonl')]), {
      width: 390,
      height: 844,
    })
    const stacked = await sideBySide.page.evaluate(() => ({
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      columns: getComputedStyle(document.querySelector('.pair')!).gridTemplateColumns.split(' ').length,
      labels: [...document.querySelectorAll('li.row .pair .side-label')]
        .slice(0, 2)
        .map((l) => [l.textContent, Math.round(l.getBoundingClientRect().height) > 5]),
    }))
    expect(stacked).toEqual({
      overflow: expect.any(Number),
      columns: 1,
      labels: [
        ['Before', true],
        ['After', true],
      ],
    })
    expect(stacked.overflow).toBeLessThanOrEqual(0)
    await sideBySide.page.close()
    const light = await open(run)
    const background = await light.page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    expect(luminance(background)).toBeGreaterThan(0.9)
    await light.page.close()
  })

  it('opens the page of a 200-step run in under a second', async () => {
    await recordLongRun(work, 'long.jsonl', 200)
    const file = await view('long', ['long.jsonl'], work)
    const bytes = statSync(file).size
    const cassetteBytes = statSync(join(work, 'long.jsonl')).size
    // What the run's inputs weigh whole (the cassette stores each step as what it appended).
    const cassette = parseCassette(readFileSync(join(work, 'long.jsonl'), 'utf8'), 'long.jsonl')
    const wholeBytes = Buffer.byteLength(
      serializeCassette({ ...cassette, header: { ...cassette.header, agentTape: 1 } }),
    )
    // The suite shares two cores with other test files: up to five tries, the best one counts.
    const times: number[] = []
    while (times.length < 5 && !times.some((t) => t < 1000)) {
      const { page, ms } = await open(file)
      expect(await page.$$eval('#outline a.o', (c) => c.length)).toBe(399)
      times.push(ms)
      await page.close()
    }
    const ms = Math.min(...times)
    console.log(
      `200-step run: cassette ${(cassetteBytes / 1e6).toFixed(1)} MB, page ${(bytes / 1e6).toFixed(2)} MB, opened and drawn in ${Math.round(ms)} ms (tries: ${times.map(Math.round).join(', ')} ms)`,
    )
    expect(bytes).toBeLessThan(wholeBytes / 10)
    expect(ms).toBeLessThan(1000)
  }, 120_000)
})

/** Relative luminance of a CSS `rgb(…)` colour, 0 (black) to 1 (white). */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number).map((c) => {
    const v = c / 255
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}
