import { describe, expect, it } from 'vitest'
import { ORDINARY_TEXTS } from '../support/ordinary-texts.js'
import { printedPieces, SECRET_FORMS, writtenPieces } from '../support/secret-forms.js'
import { EVERY_PRINTER, shown, throughEveryPrinter } from '../support/secret-printers.js'

// Every writer of files and every printer, run over every secret form and every ordinary text:
// the miss report, the run file kept for the view, the live-tools drift report, the run summary,
// the GitHub step summary, the divergence view page, and the CLI's show, diff, view, verify and
// textconv on a cassette written by hand. A secret shows at most 4 characters anywhere; ordinary text is
// shown as it is.
describe.each(SECRET_FORMS.map((f) => [f.class, f.id, f] as const))('secret %s: %s', (_, id, form) => {
  it('is shown by no printer and written by no writer', async () => {
    const { printed, written, verify } = await throughEveryPrinter(id, [form.value], form.env ?? {})
    expect(Object.keys(printed)).toEqual(expect.arrayContaining(EVERY_PRINTER))
    expect(printed['miss report']).toContain('Replay miss')
    expect(printed['drift report']).toContain('Tool drift')
    expect(
      Object.keys(printed).some((k) => k.startsWith('view page ')),
      printed['run summary'],
    ).toBe(true)
    for (const [where, text] of Object.entries(printed)) expect(printedPieces(text, form), where).toEqual([])
    for (const [where, text] of Object.entries(written)) expect(writtenPieces(text, form), where).toEqual([])
    expect(verify, printed['verify a.jsonl']).toBe(1)
  })
})

describe.each(ORDINARY_TEXTS.map((t) => [t.category, t.id, t] as const))('ordinary %s: %s', (_, id, text) => {
  it('is shown by every printer as it is', async () => {
    const { printed, written, verify } = await throughEveryPrinter(id, [text.value], text.env ?? {})
    expect(Object.keys(printed)).toEqual(expect.arrayContaining(EVERY_PRINTER))
    expect(written['run file']).toBeDefined()
    if (!JSON.stringify(text.value).includes('REDACTED')) {
      for (const [where, output] of Object.entries({ ...printed, ...written }))
        expect(shown(output), where).not.toContain('[REDACTED')
    }
    expect(verify, printed['verify a.jsonl']).toBe(0)
  })
})
