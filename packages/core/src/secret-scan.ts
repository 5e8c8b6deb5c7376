import type { Cassette } from './cassette-format.js'
import { describeDecision } from './describe-decision.js'
import { SecretLeakError } from './errors.js'
import type { SecretFinding, SecretScanner } from './secrets/index.js'

export type CassetteFinding = SecretFinding & { where: string }

/**
 * Every secret in a cassette, as a reader of the file would see it: in any string, in base64
 * bodies and in the text of streamed answers. `verify` and the write check share it.
 */
export function findCassetteSecrets(cassette: Cassette, scanner: SecretScanner): CassetteFinding[] {
  const findings: CassetteFinding[] = []
  for (const f of scanner.findInJson(cassette.header, 'header')) findings.push({ ...f, where: 'the header' })
  for (const d of cassette.decisions) {
    const where = `decision #${d.seq} (${describeDecision(d.kind, d.in)}, step ${d.step})`
    const body = d.err ? { in: d.in, err: d.err } : { in: d.in, out: d.out }
    for (const f of scanner.findInJson(body)) findings.push({ ...f, where })
  }
  return findings
}

/**
 * Refuses to write a cassette that contains a secret-shaped string or the value of a secret-like
 * environment variable. Throws before anything is written, naming the decision and field.
 */
export function scanCassette(cassette: Cassette, file: string, scanner: SecretScanner): void {
  const findings = findCassetteSecrets(cassette, scanner)
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
