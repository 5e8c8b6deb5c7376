/**
 * Orders lane paths as a reader of the process tree expects: the main lane first, then by each
 * name in turn, numbers by value (`2` before `10`) and before other names: `''`, `0`, `1`, `1/1`,
 * `1.2`, `2`, `10`, `main.2`.
 */
export function compareLanes(a: string, b: string): number {
  const x = sortKey(a)
  const y = sortKey(b)
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!
    const q = y[i]!
    if (p === q) continue
    if (typeof p === 'number' && typeof q === 'number') return p - q
    if (typeof p === 'number') return -1
    if (typeof q === 'number') return 1
    return p < q ? -1 : 1
  }
  return x.length - y.length
}

function sortKey(lane: string): (number | string)[] {
  if (lane === '') return []
  return lane.split('/').flatMap((name) => [
    ...name.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
    // Ends each name before any number: a process, then its children, then its siblings by shell.
    -1,
  ])
}
