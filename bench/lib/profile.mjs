/** CPU profile of a code region (node:inspector), summarized as self time per function. */
import { Session } from 'node:inspector/promises'

export async function profile(fn) {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 100 })
  await session.post('Profiler.start')
  await fn()
  const { profile: p } = await session.post('Profiler.stop')
  session.disconnect()
  return p
}

/** The functions with the most self time: [{ name, ms, share }]. */
export function topSelfTime(p, limit = 15) {
  const time = new Map()
  for (let i = 0; i < p.samples.length; i++) {
    time.set(p.samples[i], (time.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0))
  }
  const self = new Map()
  let total = 0
  for (const node of p.nodes) {
    const t = time.get(node.id) ?? 0
    total += t
    const { functionName, url, lineNumber } = node.callFrame
    const where = url ? ` (${url.split('/').slice(-2).join('/')}:${lineNumber + 1})` : ''
    const name = `${functionName || '(anonymous)'}${where}`
    self.set(name, (self.get(name) ?? 0) + t)
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, us]) => ({ name, ms: us / 1000, share: us / total }))
}
