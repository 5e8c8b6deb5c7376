#!/usr/bin/env node
/**
 * `pnpm bench`: replay cost of agent-tape next to Polly.js, nock back and the fixed-response
 * floor, on traffic recorded once from the loopback fake provider. Prints the tables and
 * rewrites RESULTS.md and the README's performance table (between its bench:start/end markers).
 *
 *   --quick              fewer rounds and requests (a smoke run; RESULTS.md and the README are not written)
 *   --baseline <dir>     also measure an older build (see baseline.mjs) as "agent-tape before this change"
 *   --only <a,b>         run only these scenarios: per-request, streaming, agent-run, load, suite,
 *                        growth, patch-chain, capture, view (agent-run also measures the secret scan
 *                        on its cassette; growth also the diff a re-record makes; view needs Chromium)
 *   --capture-node <bin> also run the capture scenario's servers on this Node.js binary (another
 *                        major version), beside the one running the bench
 *   --profile            add the CPU profile of agent-tape's 200 KB replay path to a quick run
 *   --json <file>        also write the raw results there (to render them again with report.mjs)
 *   --steps <n>          the agent run's length (default 200)
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { startFakeProvider } from '@agent-tape/fake-provider'
import { updateCaptureTables } from './lib/capture-report.mjs'
import { CONTENDERS, createContenders } from './lib/contenders.mjs'
import { updateReadme } from './lib/readme.mjs'
import { renderResults } from './lib/report.mjs'
import { agentRun, RUN_NAME } from './scenarios/agent-run.mjs'
import { captureOverhead } from './scenarios/capture.mjs'
import { cassetteLoad } from './scenarios/cassette-load.mjs'
import { growth } from './scenarios/growth.mjs'
import { patchChain } from './scenarios/patch-chain.mjs'
import { perRequest, profileLarge } from './scenarios/per-request.mjs'
import { rerecordDiff } from './scenarios/rerecord.mjs'
import { secretScan } from './scenarios/secret-scan.mjs'
import { streaming } from './scenarios/streaming.mjs'
import { suite } from './scenarios/suite.mjs'
import { viewPaint } from './scenarios/view-paint.mjs'

const { values: args } = parseArgs({
  // `pnpm bench -- --quick` passes the `--` on.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    baseline: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    json: { type: 'string' },
    steps: { type: 'string' },
    'capture-node': { type: 'string' },
  },
})
const only = args.only ? new Set(args.only.split(',')) : undefined
const wants = (name) => !only || only.has(name)
const started = performance.now()

const config = {
  quick: args.quick,
  rounds: args.quick ? { warmup: 1, repeat: 2 } : { warmup: 2, repeat: 7 },
  ...(args.steps ? { steps: Number(args.steps) } : {}),
}
const script = [() => ({ text: 'Refund issued for INV-412.', usage: { inputTokens: 500, outputTokens: 7 } })]
const provider = Object.assign(await startFakeProvider({ reply: (r) => script.at(-1)(r), seed: 'bench' }), {
  script,
})
const dir = mkdtempSync(join(tmpdir(), 'agent-tape-bench-'))
let baseline
if (args.baseline) {
  const root = resolve(args.baseline)
  baseline = {
    revision: readFileSync(join(root, 'REVISION'), 'utf8').trim(),
    core: await import(join(root, 'core', 'index.js')),
    http: await import(join(root, 'http', 'index.js')),
  }
}
const contenders = createContenders({ dir, modelEndpoint: provider.url, http: { baseline } })
const names = [...CONTENDERS, ...(baseline ? ['baseline'] : [])]
const results = { names, baseline: baseline?.revision }
const log = (text) => process.stderr.write(`${text}\n`)

try {
  if (wants('per-request')) {
    log('1/6 per-request replay cost')
    results.perRequest = await perRequest({ contenders, names, provider, config })
    if (args.profile || !args.quick) results.profile = await profileLarge({ contenders, provider, config })
  }
  if (wants('streaming')) {
    log('2/6 streaming replay')
    results.streaming = await streaming({ contenders, names, provider, config })
  }
  if (wants('agent-run')) {
    log('3/6 200-step agent run, keying')
    results.agentRun = await agentRun({ contenders, names, provider, config })
    log('5/6 cassette size')
    results.sizes = Object.fromEntries(
      CONTENDERS.filter((c) => c !== 'floor').map((c) => [
        c,
        contenders[c].files(RUN_NAME).reduce((sum, f) => sum + statSync(f).size, 0),
      ]),
    )
    log('   the secret scan at write time')
    results.secretScan = await secretScan({
      dir,
      runCassette: contenders['agent-tape'].files(RUN_NAME)[0],
      config,
    })
  }
  if (wants('load')) {
    log('4/6 cassette load')
    results.load = await cassetteLoad({ dir, config })
  }
  if (wants('suite')) {
    log('6/6 suite overhead under Vitest and Jest')
    results.suite = await suite({ provider, config })
  }
  if (wants('growth')) {
    log('8. growth with the length of a run')
    results.growth = await growth({ contenders, names, provider, config })
    log('9. the diff of a re-record after a one-word prompt edit')
    results.rerecord = await rerecordDiff({ dir, config })
  }
  if (wants('patch-chain')) {
    log('10. deep patch chains: 10,000 to 100,000 appended messages')
    results.patchChain = await patchChain({ dir, config })
  }
  if (wants('capture')) {
    log('11. what capturing costs a server')
    results.capture = [await captureOverhead({ config })]
    if (args['capture-node']) {
      results.capture.push(
        await captureOverhead({ config: { ...config, captureNode: args['capture-node'] } }),
      )
    }
  }
  if (wants('view')) {
    log('12. what a page of agent-tape view costs to open in Chromium')
    results.view = await viewPaint({ dir, config })
  }
} finally {
  await provider.close()
  rmSync(dir, { recursive: true, force: true })
}

results.machine = {
  cpu: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
  memory: `${Math.round(totalmem() / 1024 ** 3)} GB`,
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  versions: versions(),
  rounds: config.rounds,
  seconds: Math.round((performance.now() - started) / 1000),
  date: new Date().toISOString().slice(0, 10),
}
if (args.json) writeFileSync(args.json, JSON.stringify(results, null, 2))
const { table, markdown } = renderResults(results)
console.log(table)
if (!args.quick && results.capture) {
  // The capture table stands by itself: written by a whole run and by `--only capture` alike.
  for (const doc of ['../README.md', '../docs/capture.md']) {
    const url = new URL(doc, import.meta.url)
    writeFileSync(url, updateCaptureTables(readFileSync(url, 'utf8'), results.capture))
  }
  log('wrote the capture table of the README and docs/capture.md')
}
if (!args.quick && !only) {
  writeFileSync(new URL('RESULTS.md', import.meta.url), markdown)
  const readme = new URL('../README.md', import.meta.url)
  writeFileSync(readme, updateReadme(readFileSync(readme, 'utf8'), results))
  log("wrote bench/RESULTS.md and the README's performance table")
}

function versions() {
  const read = (name) => {
    const url = new URL(`node_modules/${name}/package.json`, import.meta.url)
    return JSON.parse(readFileSync(url, 'utf8')).version
  }
  return Object.fromEntries(
    [
      '@agent-tape/core',
      '@pollyjs/core',
      '@pollyjs/adapter-fetch',
      'nock',
      '@mswjs/interceptors',
      'openai',
      'vitest',
      'jest',
    ].map((n) => [n, read(n)]),
  )
}
