/** Scenario 1: one replayed OpenAI chat request through `fetch`, 2 KB and 200 KB bodies. */

import { summarize, timeReplays } from '../lib/stats.mjs'
import { chatBody, postChatBodies } from '../lib/traffic.mjs'

export async function perRequest({ contenders, names, provider, config }) {
  const url = `${provider.openaiBaseURL}/chat/completions`
  const results = []
  for (const { label, bytes, count } of [
    { label: '2 KB', bytes: 2_000, count: config.quick ? 20 : 100 },
    { label: '200 KB', bytes: 200_000, count: config.quick ? 5 : 20 },
  ]) {
    // Distinct requests (the first message differs), so no tool can serve one from a cache of the last.
    const bodies = Array.from({ length: count }, (_, i) => chatBody(bytes, i))
    const send = () => postChatBodies(url, bodies)
    const name = `per-request-${bytes}`
    for (const c of names) await contenders[c].record(name, send)
    const times = await timeReplays({ contenders, names, config }, name, () => send, count)
    results.push({
      label,
      bytes: JSON.stringify(bodies[0]).length,
      count,
      times,
      summary: Object.fromEntries(names.map((c) => [c, summarize(times[c])])),
    })
  }
  return results
}

/** A CPU profile of agent-tape replaying the 200 KB requests: where the time goes. */
export async function profileLarge({ contenders, provider, config }) {
  const { profile, topSelfTime } = await import('../lib/profile.mjs')
  const url = `${provider.openaiBaseURL}/chat/completions`
  // As many requests as the scenario recorded (fewer in a quick run).
  const bodies = Array.from({ length: config.quick ? 5 : 20 }, (_, i) => chatBody(200_000, i))
  const send = () => postChatBodies(url, bodies)
  const sessions = []
  for (let i = 0; i < 20; i++) sessions.push(await contenders['agent-tape'].open('per-request-200000'))
  const p = await profile(async () => {
    for (const session of sessions) await session.run(send)
  })
  for (const session of sessions) await session.close().catch(() => {})
  return topSelfTime(p, 12)
}
