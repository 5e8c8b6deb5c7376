import type { GateItem } from './gate-items.js'
import type { Outcome, SurfaceGroup } from './gate-tape.js'
import { type PrinterOutputs, shown, throughEveryPrinter } from './secret-printers.js'

/** Each printer and writer for people, by the outputs of the harness that are its. */
const PRINTERS: { name: string; outputs: (key: string) => boolean }[] = [
  { name: 'the miss report', outputs: (k) => k === 'miss report' },
  { name: 'the live-tools drift report', outputs: (k) => k === 'drift report' },
  { name: 'the run summary', outputs: (k) => k === 'run summary' },
  { name: 'the GitHub step summary', outputs: (k) => k === 'step summary' },
  { name: 'the view page of a diverged run', outputs: (k) => k.startsWith('view page ') },
  { name: 'agent-tape show', outputs: (k) => k === 'show a.jsonl --full' },
  { name: 'agent-tape show --json', outputs: (k) => k === 'show a.jsonl --json' },
  { name: 'agent-tape diff', outputs: (k) => k === 'diff a.jsonl b.jsonl' },
  { name: 'agent-tape diff --json', outputs: (k) => k === 'diff a.jsonl b.jsonl --json' },
  { name: 'agent-tape view', outputs: (k) => k.startsWith('view a.jsonl -o') },
  { name: 'agent-tape view of two cassettes', outputs: (k) => k.startsWith('view a.jsonl b.jsonl') },
  { name: 'agent-tape verify', outputs: (k) => k === 'verify a.jsonl' },
]

const RUN_FILE = 'the run file kept for the view'

/** How many values share one run of every printer. */
const BATCH = 24

/** The outcome of each value at each printer, from one run of the harness over them. */
function outcomesOf(items: readonly GateItem[], run: PrinterOutputs): Record<string, Outcome[]> {
  const out: Record<string, Outcome[]> = {}
  const keys = Object.keys(run.printed)
  for (const printer of PRINTERS) {
    const texts = keys.filter(printer.outputs).map((k) => run.printed[k]!)
    if (texts.length === 0) throw new Error(`no output of ${printer.name}: ${keys.join(', ')}`)
    const text = texts.join('\n')
    const seen = texts.map(shown).join('\n')
    const at = seen.indexOf('[REDACTED')
    out[printer.name] = items.map((item) => {
      const outcome: Outcome = { written: [], printed: item.printed(text) }
      if (item.kind === 'ordinary' && !JSON.stringify(item.form.value).includes('REDACTED')) {
        if (at >= 0) outcome.redacted = seen.slice(Math.max(0, at - 40), at + 40)
        if (printer.name === 'agent-tape verify' && run.verify !== 0) outcome.refused = text
      }
      return outcome
    })
  }
  const file = run.written['run file']
  if (file === undefined) throw new Error('no run file was written')
  out[RUN_FILE] = items.map((item) => {
    const outcome: Outcome = { written: item.written(file), printed: [] }
    const at = file.indexOf('[REDACTED')
    if (item.kind === 'ordinary' && at >= 0 && !JSON.stringify(item.form.value).includes('REDACTED'))
      outcome.redacted = file.slice(Math.max(0, at - 40), at + 40)
    return outcome
  })
  return out
}

/**
 * Every printer over a batch of values. An ordinary text's marker (or a verify that fails) in a
 * shared run could be any value's: the batch is then split in two and each half run again,
 * down to the values that make it, so that each is counted for what it did.
 */
async function printersOver(
  batch: readonly GateItem[],
  env: Record<string, string>,
): Promise<Record<string, Outcome[]>> {
  const run = await throughEveryPrinter(
    'gate',
    batch.map((i) => i.form.value),
    env,
  )
  const outcomes = outcomesOf(batch, run)
  const failed = Object.values(outcomes).some((list) => list.some((o) => o.redacted || o.refused))
  if (!failed || batch.length === 1) return outcomes
  const half = Math.ceil(batch.length / 2)
  const first = await printersOver(batch.slice(0, half), env)
  const second = await printersOver(batch.slice(half), env)
  return Object.fromEntries(Object.keys(outcomes).map((name) => [name, [...first[name]!, ...second[name]!]]))
}

/** Every printer over the values, many per run; a suspect alone. */
async function throughPrinters(
  items: readonly GateItem[],
  env: Record<string, string>,
  suspects: ReadonlySet<GateItem>,
): Promise<Record<string, Outcome[]>> {
  // A value that holds a marker of its own would mark every value it is printed with.
  const marked = (item: GateItem) =>
    JSON.stringify(item.form.value).includes('REDACTED') || suspects.has(item)
  const batches: GateItem[][] = items.filter(marked).map((item) => [item])
  const plain = items.filter((item) => !marked(item))
  for (let at = 0; at < plain.length; at += BATCH) batches.push(plain.slice(at, at + BATCH))
  const out: Record<string, Outcome[]> = {}
  for (const batch of batches) {
    const outcomes = await printersOver(batch, env)
    for (const [name, list] of Object.entries(outcomes)) {
      out[name] ??= new Array(items.length)
      batch.forEach((item, i) => {
        out[name]![items.indexOf(item)] = list[i]!
      })
    }
  }
  return out
}

export const PRINTER_SURFACES: SurfaceGroup = {
  surfaces: [
    { name: RUN_FILE, secret: 'redacted' },
    ...PRINTERS.map((p) => ({ name: p.name, secret: 'masked' as const })),
  ],
  run: throughPrinters,
}
