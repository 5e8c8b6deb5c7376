import { createMemoryStore, isSecretLeakError, openTape, parseCassette, type Tape } from '@agent-tape/core'
import type { GateItem } from './gate-items.js'
import { PREVIOUS } from './secret-checks.js'

/** What became of one value in one place. */
export interface Outcome {
  /** Pieces of a secret in a written file. */
  written: string[]
  /** Pieces of a secret beyond its preview in a printed text. */
  printed: string[]
  /** What refused the write (the rule and where), when it was refused for this value. */
  refused?: string
  /** Where a marker stands in the value as written or shown, when it was redacted. */
  redacted?: string
}

/** A place a run carries a value through, run over several values at once. */
export interface Surface {
  name: string
  /** What becomes of a secret there: written redacted, the write refused, or printed masked. */
  secret: 'redacted' | 'refused' | 'masked'
  run(items: readonly GateItem[], env: Record<string, string>): Promise<Outcome[]>
}

/** Places that one run goes through together (the printers of one run), by name. */
export interface SurfaceGroup {
  surfaces: { name: string; secret: Surface['secret'] }[]
  /**
   * `suspects`: the ordinary texts refused or redacted in a place before, which a group that
   * shares one run among many values runs apart, not to split a shared run to find them.
   */
  run(
    items: readonly GateItem[],
    env: Record<string, string>,
    suspects: ReadonlySet<GateItem>,
  ): Promise<Record<string, Outcome[]>>
}

/** A place on its own, as a group of one. */
export function alone(surface: Surface): SurfaceGroup {
  return {
    surfaces: [{ name: surface.name, secret: surface.secret }],
    run: async (items, env) => ({ [surface.name]: await surface.run(items, env) }),
  }
}

/**
 * How many values share one cassette. A refusal names its first 10 findings, and each secret must
 * be among them once; an ordinary text is refused by none, so many share one.
 */
const BATCH = { secret: 6, ordinary: 40 }

const seqIn = (path: string) => Number(/^decision #(\d+) /.exec(path)?.[1] ?? Number.NaN)

/**
 * Runs `place` once per value on one recording tape, as many values per cassette as the write
 * can tell apart: each value makes its own decision, and a refusal's findings name the
 * decisions. A value whose refusal the message did not show (past its first 10 findings) goes
 * again with others, until each was shown once; a value the scan let through in a cassette
 * refused for another goes again with the others it let through, so that what it writes is
 * measured.
 */
export async function throughTape(
  items: readonly GateItem[],
  env: Record<string, string>,
  place: (tape: Tape, item: GateItem) => Promise<unknown>,
): Promise<Outcome[]> {
  const outcomes = new Map<GateItem, Outcome>()
  let pending = [...items]
  const passed: GateItem[] = []
  while (pending.length > 0 || passed.length > 0) {
    const from = passed.length > 0 ? passed : pending
    const batch = from.splice(0, BATCH[from[0]!.kind])
    const run = await recordOnce(batch, env, place)
    if (run.text === undefined && !run.seqs.some((seq) => run.findings.some((f) => seqIn(f.path) === seq)))
      throw new Error(`a cassette was refused for none of its values: ${run.message}`)
    const again: GateItem[] = []
    batch.forEach((item, i) => {
      const seq = run.seqs[i]!
      const found = run.findings.filter((f) => seqIn(f.path) === seq)
      if (run.text !== undefined) outcomes.set(item, writtenOutcome(item, run.text, seq))
      else if (found.length === 0) passed.push(item)
      else if (run.shown.has(seq))
        outcomes.set(item, {
          written: [],
          printed: item.printed(run.message),
          refused: found.map((f) => `${f.rule} at ${f.path.replace(/^decision #\d+ /, '')}`).join('; '),
        })
      else again.push(item)
    })
    pending = [...again, ...pending]
  }
  return items.map((item) => outcomes.get(item)!)
}

async function recordOnce(
  items: readonly GateItem[],
  env: Record<string, string>,
  place: (tape: Tape, item: GateItem) => Promise<unknown>,
) {
  const store = createMemoryStore({ 'gate.jsonl': PREVIOUS })
  const tape = await openTape({ id: 'gate', cassettePath: 'gate.jsonl', store, mode: 'update', env })
  const seqs: number[] = []
  for (const item of items) {
    await place(tape, item)
    seqs.push(tape.state.decisions.at(-1)?.seq ?? Number.NaN)
  }
  const error = await tape.finish().then(
    () => undefined,
    (e: unknown) => e,
  )
  if (error !== undefined && !isSecretLeakError(error)) throw error
  const written = store.files['gate.jsonl']!
  const message = error?.message ?? ''
  // The decisions the message names: its first finding, and the details it lists.
  const shown = new Set(
    [...message.matchAll(/^ {2}decision #(\d+) /gm), ...message.matchAll(/: decision #(\d+) /g)].map((m) =>
      Number(m[1]),
    ),
  )
  return {
    seqs,
    text: error === undefined ? written : undefined,
    findings: error?.findings ?? [],
    message,
    shown,
  }
}

/** A written cassette: the pieces of the secret it holds, and where a marker stands in the value's decision. */
function writtenOutcome(item: GateItem, text: string, seq: number): Outcome {
  const decisions = parseCassette(text, 'gate.jsonl').decisions
  // A streamed secret is in no one event: it is written if the events join back into it.
  const joined = decisions.flatMap((d) => joinedStreams(d.out))
  const outcome: Outcome = { written: [...new Set([text, ...joined].flatMap(item.written))], printed: [] }
  const decision = decisions.find((d) => d.seq === seq)
  if (!decision) throw new Error(`${item.id}: no decision #${seq} in the cassette written`)
  const marked = markerIn(decision.in, 'in') ?? markerIn(decision.err ?? decision.out, 'out')
  if (marked && !JSON.stringify(item.form.value).includes('REDACTED')) outcome.redacted = marked
  return outcome
}

/** Where the first `[REDACTED:…]` marker stands in a value, by its JSON text. */
export function markerIn(value: unknown, where: string): string | undefined {
  const text = JSON.stringify(value) ?? ''
  const at = text.indexOf('[REDACTED')
  return at < 0 ? undefined : `${where}: …${text.slice(Math.max(0, at - 40), at + 40)}…`
}

/**
 * The texts a reader gets from the streams in a value (`sse`, `ndjson`, `frames`): the strings of
 * its events joined by where they stand in an event, positions in arrays aside, as a client
 * joins a choice's deltas or a block's text.
 */
export function joinedStreams(value: unknown): string[] {
  const texts: string[] = []
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit)
    else if (typeof v === 'object' && v !== null)
      for (const [key, child] of Object.entries(v)) {
        if (['sse', 'ndjson', 'frames'].includes(key) && Array.isArray(child))
          texts.push(...joinEvents(child))
        else visit(child)
      }
  }
  visit(value)
  return texts
}

function joinEvents(events: unknown[]): string[] {
  const byPath = new Map<string, string>()
  const leaves = (v: unknown, path: string): void => {
    if (typeof v === 'string') byPath.set(path, (byPath.get(path) ?? '') + v)
    else if (Array.isArray(v)) for (const child of v) leaves(child, `${path}[]`)
    else if (typeof v === 'object' && v !== null)
      for (const [key, child] of Object.entries(v)) leaves(child, `${path}.${key}`)
  }
  for (const event of events) leaves(event, '')
  return [...byPath.values()]
}
