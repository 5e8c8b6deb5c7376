/**
 * Scenario 8: how each tool grows with the length of a run. The long tool-using loop of scenario 3
 * at several lengths; for each length and tool: replay time, per-step cost, bytes on disk, and the
 * load time and memory of the recording in a fresh process. Nothing here assumes a cassette format:
 * it measures what the built packages do.
 */
import { statSync } from 'node:fs'
import OpenAI from 'openai'
import { measureFreshLoad } from '../lib/fresh-load.mjs'
import { median, ratioTo, summarize, timeReplays } from '../lib/stats.mjs'
import { longRunScript, runLongAgent } from '../lib/traffic.mjs'

export const GROWTH_STEPS = [50, 100, 200, 300]
const QUICK_STEPS = [20, 40]
/** The tools whose recordings are loaded in a fresh process (the floor keeps nothing on disk). */
const LOADED = ['agent-tape', 'polly', 'nock']

export async function growth({ contenders, names, provider, config }) {
  const lengths = config.quick ? QUICK_STEPS : GROWTH_STEPS
  const series = []
  for (const steps of lengths) {
    process.stderr.write(`   ${steps} steps\n`)
    series.push(await measureLength({ contenders, names, provider, config }, steps))
  }
  return {
    lengths,
    series,
    sizeSlope: slopesOf(series, (point, c) => point.sizes[c]),
    loadSlope: slopesOf(series, (point, c) => point.load[c]?.load.median),
  }
}

async function measureLength({ contenders, names, provider, config }, steps) {
  const name = `growth-${steps}`
  const stepMs = Object.fromEntries(names.map((c) => [c, []]))
  const run = async (tools, into) => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseURL, maxRetries: 0 })
    const result = await runLongAgent(client, tools, steps)
    if (result.stepMs.length !== steps) {
      throw new Error(`growth: the ${steps}-step run took ${result.stepMs.length} steps; the script is off`)
    }
    into?.push(result.stepMs)
  }
  provider.script.push(longRunScript(steps))
  let bodies
  try {
    for (const c of names) {
      const first = provider.requests.length
      await contenders[c].record(name, (tools) => run(tools))
      if (c === 'agent-tape') bodies = provider.requests.slice(first).map((r) => r.rawBody)
    }
  } finally {
    provider.script.pop()
  }

  const rounds = roundsFor(steps, config)
  const times = await timeReplays(
    { contenders, names, config: { rounds } },
    name,
    (c) => (tools) => run(tools, stepMs[c]),
  )
  // Each tool's runs come in round order: drop the warm-up rounds' steps.
  for (const c of names) stepMs[c] = stepMs[c].slice(rounds.warmup)
  const probes = [1, Math.round(steps / 2), steps].map((step) => ({
    step,
    bytes: Buffer.byteLength(bodies[step - 1]),
  }))
  const perStep = Object.fromEntries(
    names.map((c) => [
      c,
      probes.map((p) => median(stepMs[c].flatMap((s) => s.slice(...windowOf(p.step, steps))))),
    ]),
  )
  const sizes = Object.fromEntries(
    names
      .filter((c) => c !== 'floor')
      .map((c) => [c, contenders[c].files(name).reduce((sum, f) => sum + statSync(f).size, 0)]),
  )
  const load = {}
  for (const c of LOADED.filter((tool) => names.includes(tool))) {
    load[c] = await measureFreshLoad({
      tool: c,
      path: contenders[c].files(name)[0],
      expected: c === 'agent-tape' ? steps * 2 - 1 : steps,
      // agent-tape's own load in 20 processes: its spread is part of the result.
      repeat: config.quick ? 1 : c === 'agent-tape' ? 20 : 5,
    })
  }
  return {
    steps,
    rounds,
    historyBytes: Buffer.byteLength(bodies.at(-1)),
    times,
    summary: Object.fromEntries(names.map((c) => [c, summarize(times[c])])),
    vsFloor: Object.fromEntries(names.map((c) => [c, median(ratioTo(times[c], times.floor))])),
    probes,
    perStep,
    extraPerKb: Object.fromEntries(names.map((c) => [c, extraPerKb(stepMs, bodies, c)])),
    sizes,
    load,
  }
}

/** Fewer rounds for the longest runs: a 300-step replay round of every tool takes seconds. */
function roundsFor(steps, config) {
  if (config.quick || steps < 200) return config.rounds
  return steps < 300 ? { warmup: 1, repeat: 5 } : { warmup: 1, repeat: 3 }
}

/** The eleven steps around `step` (one step alone is too noisy), kept inside the run, as slice bounds. */
function windowOf(step, steps) {
  const from = Math.max(1, Math.min(step - 5, steps - 10))
  return [from - 1, Math.min(steps, from + 10)]
}

/**
 * What a step costs over the floor's step, per KB of history, in µs: the least-squares slope of
 * that extra (each step's median over the rounds, minus the floor's) against the request body's
 * size, over the second half of the run (from the middle to the last probe step). A fit over
 * every step there, not two probes, so one noisy window does not decide it.
 */
function extraPerKb(stepMs, bodies, c) {
  const from = Math.floor(bodies.length / 2)
  const points = []
  for (let i = from; i < bodies.length; i++) {
    const at = (tool) => median(stepMs[tool].map((steps) => steps[i]))
    points.push([Buffer.byteLength(bodies[i]) / 1024, (at(c) - at('floor')) * 1000])
  }
  return fitSlope(points)
}

/** Least-squares slope of log(value) against log(steps), per tool: 1 is linear, 2 quadratic. */
function slopesOf(series, measureOf) {
  const tools = Object.keys(series[0].sizes).concat(Object.keys(series[0].load))
  return Object.fromEntries(
    [...new Set(tools)]
      .map((c) => {
        const points = series
          .map((p) => [Math.log(p.steps), Math.log(measureOf(p, c))])
          .filter(([, y]) => Number.isFinite(y))
        return [c, points.length < 2 ? undefined : fitSlope(points)]
      })
      .filter(([, slope]) => slope !== undefined),
  )
}

/** Least-squares slope of y against x over [x, y] points. */
function fitSlope(points) {
  const mx = points.reduce((s, [x]) => s + x, 0) / points.length
  const my = points.reduce((s, [, y]) => s + y, 0) / points.length
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0)
  return sxy / sxx
}
