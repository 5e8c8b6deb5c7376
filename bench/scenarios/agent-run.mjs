/**
 * Scenario 3: a 200-step tool-using loop whose history grows every step, replayed end to end;
 * and the keying cost of its requests next to the floor of JSON.parse plus sha256.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { openTape, parseCassette } from '@agent-tape/core'
import { tapeInternals } from '@agent-tape/core/internal'
import { createFileStore } from '@agent-tape/core/node'
import { readRequestParts, wireHead } from '@agent-tape/http/internal'
import stableStringify from 'fast-json-stable-stringify'
import OpenAI from 'openai'
// Internal to the http package: the bench fingerprints requests exactly as its boundary does.
import { median, rounds, summarize, timeReplays } from '../lib/stats.mjs'
import { longRunScript, runLongAgent } from '../lib/traffic.mjs'

export const STEPS = 200
export const RUN_NAME = 'agent-run-200'
const PROBES = [1, 50, 100, 150, 200]

export async function agentRun({ contenders, names, provider, config }) {
  // `--steps` runs a longer (or shorter) loop; the probes past its end are left out.
  const steps = config.steps ?? STEPS
  const probes = [...PROBES.filter((step) => step < steps), steps]
  const around = (runs, step) => aroundStep(runs, step, steps)
  const stepMs = Object.fromEntries(names.map((c) => [c, []]))
  const run = async (tools, into) => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseURL, maxRetries: 0 })
    const result = await runLongAgent(client, tools, steps)
    if (result.stepMs.length !== steps) throw new Error(`the run took ${result.stepMs.length} steps`)
    into?.push(result.stepMs)
  }
  provider.script.push(longRunScript(steps))
  let bodies
  let sent
  for (const c of names) {
    const first = provider.requests.length
    await contenders[c].record(RUN_NAME, (tools) => run(tools))
    // The ids in the history differ between recordings: key the requests agent-tape recorded.
    if (c === 'agent-tape') {
      sent = provider.requests.slice(first)
      bodies = sent.map((r) => r.rawBody)
    }
  }
  provider.script.pop()

  const times = await timeReplays(
    { contenders, names, config },
    RUN_NAME,
    (c) => (tools) => run(tools, stepMs[c]),
  )
  const perStep = Object.fromEntries(names.map((c) => [c, probes.map((step) => around(stepMs[c], step))]))
  const keying = await measureKeying(
    bodies,
    wireHeads(sent, provider.openaiBaseURL),
    contenders['agent-tape'].files(RUN_NAME)[0],
    config,
    probes,
    around,
  )
  return {
    steps,
    times,
    summary: Object.fromEntries(names.map((c) => [c, summarize(times[c])])),
    probes: probes.map((step) => ({ step, bytes: Buffer.byteLength(bodies[step - 1]) })),
    perStep,
    keying,
  }
}

/**
 * Keying: from a request body's text to its key, as the http boundary and the tape do it on
 * replay (parse, canonical input, key), for every request of the run, in order.
 *   floor     JSON.parse + sha256 of the body text
 *   current   agent-tape's tape.begin on a replay tape (finds each recorded decision): the keyed
 *             path, which a request takes when its cassette has no fingerprints or it changed
 *   fingerprint  tapeInternals(tape).beginRequest with the request's bytes, as the http boundary replays a
 *             recorded request: its fingerprint finds the decision, nothing is parsed
 *   previous  the scheme before this change: JSON round trip + fast-json-stable-stringify + sha256
 */
async function measureKeying(bodies, heads, cassettePath, config, probes, around) {
  const cassette = parseCassette(readFileSync(cassettePath, 'utf8'), cassettePath)
  const llm = cassette.decisions.filter((d) => d.kind === 'llm')
  const shape = llm[0].in
  const inputOf = (text) => ({ ...shape, body: JSON.parse(text) })
  // The keys must be the recorded ones, or the timing would include miss reports.
  const previousKey = (text, step) => {
    const input = JSON.parse(JSON.stringify(inputOf(text)))
    const digest = createHash('sha256').update(stableStringify({ input, step })).digest('hex')
    return `llm:${digest.slice(0, 16)}`
  }
  if (previousKey(bodies[5], 6) !== llm[5].key) {
    const mine = stableStringify(inputOf(bodies[5]))
    const theirs = stableStringify(llm[5].in)
    let i = 0
    while (mine[i] === theirs[i]) i++
    throw new Error(
      `previous keying scheme gives other keys: ${mine.slice(i - 80, i + 80)} vs ${theirs.slice(i - 80, i + 80)}`,
    )
  }
  const store = createFileStore()
  const variants = {
    floor: async () => {
      const perStep = []
      for (const text of bodies) {
        const t = performance.now()
        JSON.parse(text)
        createHash('sha256').update(text).digest('hex')
        perStep.push(performance.now() - t)
      }
      return perStep
    },
    current: async () => {
      const tape = await openTape({ id: 'k', cassettePath, store, mode: 'replay', env: {} })
      const perStep = []
      for (const text of bodies) {
        const t = performance.now()
        const decision = tape.begin('llm', inputOf(text))
        perStep.push(performance.now() - t)
        if (decision.action !== 'replay') throw new Error('keying missed')
        const tool = nextToolInput(cassette, decision.record.seq)
        if (tool) tape.begin('tool', tool)
      }
      return perStep
    },
    fingerprint: async () => {
      const tape = await openTape({ id: 'k', cassettePath, store, mode: 'replay', env: {} })
      const internals = tapeInternals(tape)
      const perStep = []
      for (let i = 0; i < bodies.length; i++) {
        const body = Buffer.from(bodies[i])
        const t = performance.now()
        const decision = internals.beginRequest({
          kind: 'llm',
          head: heads[i],
          body,
          decide: () => ({ kind: 'llm', input: inputOf(bodies[i]) }),
        })
        perStep.push(performance.now() - t)
        if (decision.action !== 'replay') throw new Error('keying missed')
        const tool = nextToolInput(cassette, decision.record.seq)
        if (tool) tape.begin('tool', tool)
      }
      if (internals.wireReplays() !== bodies.length)
        throw new Error(
          `only ${internals.wireReplays()} of ${bodies.length} requests were found by fingerprint`,
        )
      return perStep
    },
    previous: async () => {
      const perStep = []
      for (let i = 0; i < bodies.length; i++) {
        const t = performance.now()
        previousKey(bodies[i], i + 1)
        perStep.push(performance.now() - t)
      }
      return perStep
    },
  }
  const perStepRuns = { floor: [], current: [], fingerprint: [], previous: [] }
  const times = await rounds(Object.keys(variants), config.rounds, async (v) => {
    const perStep = await variants[v]()
    perStepRuns[v].push(perStep)
    return perStep.reduce((a, b) => a + b, 0)
  })
  const probe = (v) => probes.map((step) => around(perStepRuns[v], step))
  return {
    times,
    summary: Object.fromEntries(Object.keys(variants).map((v) => [v, summarize(times[v])])),
    perStep: Object.fromEntries(Object.keys(variants).map((v) => [v, probe(v)])),
  }
}

/** The fingerprint head of each request the fake provider received, as the http boundary computes it. */
function wireHeads(requests, baseURL) {
  return requests.map((r) => {
    const url = new URL(`${new URL(baseURL).origin}${r.path}${r.search}`)
    const request = new Request(url, { method: r.method, headers: r.headers, body: r.rawBody })
    const body = Buffer.from(r.rawBody)
    return wireHead(readRequestParts(request, url, 'model', body))
  })
}

/** The recorded tool input that follows a model decision (replayed too, to keep the tape in step). */
function nextToolInput(cassette, seq) {
  const next = cassette.decisions[seq]
  return next?.kind === 'tool' ? next.in : null
}

/** Median of one step's time over all rounds and the ten steps around it (one step alone is too noisy). */
function aroundStep(runs, step, steps) {
  const from = Math.max(1, Math.min(step - 5, steps - 10))
  return median(runs.flatMap((steps) => steps.slice(from - 1, from + 10)))
}
