import { ConfigError } from './errors.js'

/**
 * Refuses an options object with a name that is not one of `known`: a misspelt option would
 * otherwise be ignored without a word (`modelEndpoint` for `modelEndpoints`, and the model host
 * passes through unrecorded). The message names the closest known option.
 *
 * @param where What the options are, as the user wrote them: "the agentTape() options".
 */
export function assertKnownOptions(options: object, known: readonly string[], where: string): void {
  const unknown = Object.keys(options).filter((name) => !known.includes(name))
  if (unknown.length === 0) return
  const described = unknown.map((name) => {
    const near = closestName(name, known)
    return near ? `${JSON.stringify(name)} (did you mean ${JSON.stringify(near)}?)` : JSON.stringify(name)
  })
  throw new ConfigError({
    what: `Unknown ${unknown.length === 1 ? 'option' : 'options'} ${described.join(', ')} in ${where}`,
    why: 'agent-tape would ignore it, and the run would not do what the option asks',
    fix: `Use one of: ${known.join(', ')}`,
  })
}

/**
 * The known name within a small edit distance of `name` (case ignored), if any: what a
 * "did you mean" names, for a misspelt option or command.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase()
  let best: { name: string; distance: number } | undefined
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase())
    if (!best || distance < best.distance) best = { name: candidate, distance }
  }
  if (!best) return undefined
  return best.distance <= Math.max(2, Math.floor(name.length / 4)) ? best.name : undefined
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution))
    }
    previous = row
  }
  return previous[b.length] ?? 0
}
