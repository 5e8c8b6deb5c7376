import { type EncodedInput, encodeInputs } from './cassette-encoding.js'
import { type Cassette, type DecisionRecord, encodingAsRead } from './cassette-format.js'
import { decisionLabel } from './describe-decision.js'
import { SecretLeakError } from './errors.js'
import type { PathStep } from './json-patch.js'
import { joinPath } from './json-path.js'
import {
  type SecretFinding,
  type SecretScanner,
  type SharedRedactions,
  STREAM_KEYS,
} from './secrets/index.js'

export type CassetteFinding = SecretFinding & { where: string }

/**
 * Header fields agent-tape computes itself: dates, versions, hashes, the harness. They are
 * scanned for secret shapes only, never for environment values (`PASSWORD_MIN_LENGTH=12`
 * would otherwise refuse every recording made in December).
 */
const COMPUTED_HEADER = new Set([
  'agentTape',
  'keyScheme',
  'recordedAt',
  'harness',
  'runtime',
  'sdks',
  'envSalt',
  'env',
  'overlapped',
  'rerecordedFrom',
])

/**
 * Every secret in a cassette, as a reader of the file would see it: in any string, in base64
 * bodies and in the text of streamed answers. `verify` and the write check share it.
 *
 * It reads the cassette as written (`encoded`, computed when not given): an input stored as a
 * patch is scanned through the patch's values, each reported at its path in the whole input,
 * since every string of an input is in its line or in the line of an earlier decision. A long
 * run's repeated history is thus scanned once, not once per step.
 */
export function findCassetteSecrets(
  cassette: Cassette,
  scanner: SecretScanner,
  encoded: readonly EncodedInput[] = encodingAsRead(cassette) ?? encodeInputs(cassette),
): CassetteFinding[] {
  const findings: CassetteFinding[] = []
  const header = Object.entries(cassette.header)
  const computed = Object.fromEntries(header.filter(([name]) => COMPUTED_HEADER.has(name)))
  const given = Object.fromEntries(header.filter(([name]) => !COMPUTED_HEADER.has(name)))
  for (const f of [
    ...scanner.shapesOnly().findInJson(computed, 'header'),
    ...scanner.findInJson(given, 'header'),
  ])
    findings.push({ ...f, where: 'the header' })
  cassette.decisions.forEach((d, i) => {
    const where = `decision #${d.seq} (${decisionLabel(d)}, step ${d.step})`
    const found = (list: SecretFinding[]) => {
      for (const f of list) findings.push({ ...f, where })
    }
    const input = encoded[i]!
    if ('in' in input) found(scanner.findInJson(input.in, 'in'))
    else {
      for (const { op, at } of input.ops) if ('value' in op) found(scanner.findInJson(op.value, pathOf(at)))
      // A stream split between the base and the patch is only whole in the input.
      if (input.ops.some(({ at }) => at.some((step) => typeof step === 'string' && STREAM_KEYS.has(step))))
        found(scanner.findInStreams(d.in, 'in'))
    }
    found(scanner.findInJson(d.err ? { err: d.err } : { out: d.out }))
  })
  return findings
}

/**
 * A cassette as it may be shown or kept for people: the secrets of its inputs, outputs, errors
 * and the header fields agent-tape does not compute redacted (see
 * {@link SecretScanner.redactForReading}); its own fields (keys, fingerprints, dates, hashes)
 * left as they are. Every reader that prints a cassette or writes a copy of it goes through here.
 */
export function redactCassetteForReading(cassette: Cassette, scanner: SecretScanner): Cassette {
  if (redactedForReading.has(cassette)) return cassette
  const header: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(cassette.header))
    header[name] = COMPUTED_HEADER.has(name)
      ? scanner.shapesOnly().redactForReading(value)
      : scanner.redactForReading(value)
  // A read cassette's requests share the messages each repeats from the one before it.
  const shared: SharedRedactions = new Map()
  const redacted: Cassette = {
    header: header as unknown as Cassette['header'],
    decisions: cassette.decisions.map((d) => {
      const copy: DecisionRecord = { ...d, in: scanner.redactForReading(d.in, shared) }
      if (d.out !== undefined) copy.out = scanner.redactForReading(d.out, shared)
      if (d.err) copy.err = scanner.redactForReading(d.err) as DecisionRecord['err']
      return copy
    }),
  }
  redactedForReading.add(redacted)
  return redacted
}

/**
 * The copies {@link redactCassetteForReading} made: a reader handed one (the CLI reads every
 * cassette so before it shows it, then the view renders it) does not scan it a second time. Only
 * this module adds to it, so no caller can mark an unredacted cassette as redacted.
 */
const redactedForReading = new WeakSet<Cassette>()

function pathOf(at: readonly PathStep[]): string {
  let path = 'in'
  for (const step of at) path = typeof step === 'number' ? `${path}[${step}]` : joinPath(path, step)
  return path
}

/**
 * Refuses to write a cassette that contains a secret-shaped string or the value of a secret-like
 * environment variable. Throws before anything is written, naming the decision and field.
 */
export function scanCassette(
  cassette: Cassette,
  file: string,
  scanner: SecretScanner,
  encoded?: readonly EncodedInput[],
): void {
  const findings = findCassetteSecrets(cassette, scanner, encoded)
  if (findings.length === 0) return
  const first = findings[0]!
  const lines = findings.slice(0, 10).map((f) => `  ${f.where} ${f.path}: ${f.label} (${f.preview})`)
  if (findings.length > 10) lines.push(`  … and ${findings.length - 10} more`)
  throw new SecretLeakError(
    {
      what: `Refusing to write cassette ${file}`,
      why: `${first.where} ${first.path} contains ${first.label} (${first.preview}), and cassettes are committed to version control`,
      fix: 'Keep secrets out of tool results and responses (or redact them in your tool), or, if the value is not a secret, add it to allowSecrets. Nothing was written',
      details: lines,
    },
    findings.map((f) => ({ path: `${f.where} ${f.path}`, rule: f.rule })),
  )
}
