import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { type Cassette, parseCassette, serializeCassette } from '@agent-tape/core'
import {
  findCassetteSecrets,
  redactCassetteForReading,
  SecretScanner,
  secretEnvValues,
} from '@agent-tape/core/internal'
import { renderCompareView, renderRunView, scriptJson, writeDivergenceViews } from '@agent-tape/inspect'
import { describe, expect, it } from 'vitest'
import { runCli } from '../cli/support/cli.js'
import { formText, printedPieces, SECRET_FORMS, type SecretForm } from '../support/secret-forms.js'
import { secretCassettes } from './support/secret-cassettes.js'

// Every page agent-tape writes passes the scan a cassette write passes: the page of a run, of two
// recordings, of a diverged run (the CLI's view, the run summary's views, and the renderers
// called directly), built from cassettes that hold a secret in every place a page shows, in
// every form. The scan is the cassette write's own scanner, over the page's whole text and over
// the data it embeds, parsed; the same scan finds the secret in the cassettes the page was made
// from, so a page that kept it would fail.
const RUN = 'node_modules/.cache/agent-tape/runs/test/__cassettes__/billing.test.ts/refund.jsonl'
const RECORDING = 'test/__cassettes__/billing.test.ts/refund.jsonl'

const DATA = /(<script type="application\/json" id="agent-tape-data">)([\s\S]*?)(<\/script>)/

/** The data a page embeds, as its script reads it. */
function pageData(html: string): unknown {
  const json = DATA.exec(html)?.[2]
  if (json === undefined) throw new Error(`not a page of agent-tape view:\n${html.slice(0, 300)}`)
  return JSON.parse(json)
}

/**
 * What the scanner of a cassette write finds in a page: in its text (the markup, the title, the
 * style and the script) and in the data it embeds, parsed, every string as the script reads it.
 * The data's JSON text is read parsed rather than as characters: as characters its escapes
 * (`\n`, `\u003c`) would run a `Cookie:` line into the next string or hide a placeholder's `<`.
 */
function pageFindings(scanner: SecretScanner, html: string): string[] {
  const text = html.replace(DATA, '$1$3')
  return [...scanner.findInJson(text, 'page'), ...scanner.findInJson(pageData(html), 'data')].map(
    (f) => `${f.path}: ${f.label} (${f.preview})`,
  )
}

/** Every page agent-tape writes of the form's cassettes, by what wrote it. */
async function everyPage(cassettes: ReturnType<typeof secretCassettes>, env: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-view-secrets-'))
  const write = (path: string, cassette: Cassette) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), serializeCassette(cassette))
  }
  write(RECORDING, cassettes.recording)
  write('before.jsonl', cassettes.changed)
  write(RUN, cassettes.run)
  const pages: Record<string, string> = {}
  for (const args of [[RECORDING], ['before.jsonl', RECORDING], [RECORDING, '--run', RUN]]) {
    const result = await runCli(['view', ...args, '-o', 'page.html'], root, env)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    pages[`agent-tape view ${args.join(' ')}`] = readFileSync(join(root, 'page.html'), 'utf8')
  }
  const views = await writeDivergenceViews(
    root,
    'views',
    [{ test: 'refund', cassettePath: RECORDING, run: RUN }],
    env,
  )
  const written = views[0]!
  if (!('path' in written)) throw new Error(`the run summary wrote no view: ${written.error}`)
  pages['the run summary'] = readFileSync(join(root, written.path), 'utf8')
  // The renderers as a program calls them, on cassettes read as every reader of agent-tape reads
  // one to show it: parsed, its secrets redacted (the renderers mask each string again, but a
  // secret split across a stream's events is only whole in the cassette).
  const scanner = new SecretScanner(secretEnvValues(env))
  const read = (path: string) => ({
    file: path,
    cassette: redactCassetteForReading(parseCassette(readFileSync(join(root, path), 'utf8'), path), scanner),
  })
  pages.renderRunView = renderRunView(read(RECORDING), { env })
  pages.renderCompareView = renderCompareView(read('before.jsonl'), read(RECORDING), { env })
  pages['renderCompareView (run)'] = renderCompareView(read(RECORDING), read(RUN), { env, run: true })
  // The renderers are public: called on cassettes as parsed, unredacted, they redact them first.
  const parsed = (path: string) => ({
    file: path,
    cassette: parseCassette(readFileSync(join(root, path), 'utf8'), path),
  })
  pages['renderRunView, parsed'] = renderRunView(parsed(RECORDING), { env })
  pages['renderCompareView, parsed'] = renderCompareView(parsed('before.jsonl'), parsed(RECORDING), { env })
  pages['renderCompareView (run), parsed'] = renderCompareView(parsed(RECORDING), parsed(RUN), {
    env,
    run: true,
  })
  return pages
}

const EVERY_PAGE = [
  `agent-tape view ${RECORDING}`,
  `agent-tape view before.jsonl ${RECORDING}`,
  `agent-tape view ${RECORDING} --run ${RUN}`,
  'the run summary',
  'renderRunView',
  'renderCompareView',
  'renderCompareView (run)',
  'renderRunView, parsed',
  'renderCompareView, parsed',
  'renderCompareView (run), parsed',
]

describe.each(SECRET_FORMS.map((f) => [f.class, f.id, f] as const))(
  'secret %s: %s',
  (_, _id, form: SecretForm) => {
    it('is in no page: the scan of a cassette write finds nothing in any, and finds it in the cassettes', async () => {
      const env = form.env ?? {}
      const scanner = new SecretScanner(secretEnvValues(env))
      const cassettes = secretCassettes(form)
      for (const [which, cassette] of Object.entries(cassettes))
        expect(findCassetteSecrets(cassette, scanner).length, `the ${which} cassette`).toBeGreaterThan(0)
      const pages = await everyPage(cassettes, env)
      expect(Object.keys(pages)).toEqual(EVERY_PAGE)
      for (const [where, html] of Object.entries(pages)) {
        expect(pageFindings(scanner, html), where).toEqual([])
        expect(printedPieces(JSON.stringify(pageData(html)), form), where).toEqual([])
      }
      // The page scan sees a secret where a page could hold one: in its markup, and in its data.
      const page = pages.renderRunView!
      const inMarkup = page.replace('</main>', `\n${formText(form)}\n</main>`)
      const data = pageData(page) as Record<string, unknown>
      const inData = page.replace(DATA, (_, open: string, _json: string, close: string) =>
        [open, scriptJson({ ...data, title: form.value }), close].join(''),
      )
      expect(pageFindings(scanner, inMarkup).length, 'the secret put in the markup').toBeGreaterThan(0)
      expect(pageFindings(scanner, inData).length, 'the secret put in the data').toBeGreaterThan(0)
    })
  },
)
