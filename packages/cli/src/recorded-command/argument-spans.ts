/** Where a secret is in an argument, and what it is, for the record's note. */
export interface SecretSpan {
  start: number
  end: number
  /** What the secret is, for people: `the value of --password`, `an OpenAI API key`. */
  what: string
  /** The variable whose value it is, when it is one of the environment's secrets. */
  env?: string
}

/**
 * The parts of one argument that become placeholders, from the secrets found in it (the first
 * found of two at the same place names it). Secrets that overlap make one part. A part that is
 * exactly the value of an environment secret is filled from that variable on replay, where the
 * user keeps it anyway. The other parts are filled from the argument's own variable, of which
 * there is one, so they make one part from the first to the last: `https://u:<pw>@h/?key=<k>`
 * keeps `https://u:` and puts the rest in the variable.
 */
export function placeholderParts(spans: readonly SecretSpan[]): SecretSpan[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start || b.end - a.end)
  const groups: { start: number; end: number; members: SecretSpan[] }[] = []
  for (const span of sorted) {
    const last = groups.at(-1)
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end)
      last.members.push(span)
    } else groups.push({ start: span.start, end: span.end, members: [span] })
  }
  const parts = groups.map(({ start, end, members }): SecretSpan => {
    const env = members.find((m) => m.env !== undefined && m.start === start && m.end === end)
    return env ? { start, end, what: env.what, env: env.env! } : { start, end, what: members[0]!.what }
  })
  const own = parts.filter((p) => p.env === undefined)
  if (own.length <= 1) return parts
  const start = own[0]!.start
  const end = own.at(-1)!.end
  const inside = parts.filter((p) => p.start >= start && p.end <= end)
  return [
    ...parts.filter((p) => p.end <= start),
    { start, end, what: whatOf(inside) },
    ...parts.filter((p) => p.start >= end),
  ]
}

function whatOf(spans: readonly SecretSpan[]): string {
  return [...new Set(spans.map((s) => s.what))].join(' and ')
}
