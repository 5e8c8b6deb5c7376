/**
 * The tools compared, each behind one small interface:
 *   record(name, run)  performs `run` against the fake provider and keeps what the tool keeps
 *   open(name)         loads that recording for replay: { run(fn), close() } (load time not counted)
 *   files(name)        the files the recording was written to (for sizes)
 *   rerecord(name, run) records `run` again over the existing recording, the way the tool re-records
 *                      (agent-tape in mode `update`, Polly in mode `record`, nock back in mode `update`)
 * Every contender patches the same global `fetch`; only one is installed at a time.
 */
import { mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { openTape, runWithTape } from '@agent-tape/core'
import { createFileStore } from '@agent-tape/core/node'
import { installHttpBoundary } from '@agent-tape/http'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import FetchAdapter from '@pollyjs/adapter-fetch'
import { Polly } from '@pollyjs/core'
import FSPersister from '@pollyjs/persister-fs'

Polly.register(FetchAdapter)
Polly.register(FSPersister)

// nock intercepts as soon as it is imported: load it, then switch it off until its turn.
const { default: nock } = await import('nock')
nock.restore()

export const CONTENDERS = ['floor', 'agent-tape', 'polly', 'nock']

export const LABELS = {
  floor: 'fixed-response interceptor (floor)',
  'agent-tape': 'agent-tape',
  polly: 'Polly.js (fetch adapter, fs persister)',
  nock: 'nock back (lockdown)',
  baseline: 'agent-tape before this change',
}

export function createContenders({ dir, modelEndpoint, http = {} }) {
  const store = createFileStore()
  const pollyDir = join(dir, 'polly')
  const nockDir = join(dir, 'nock')
  mkdirSync(nockDir, { recursive: true })
  const floorResponses = new Map()

  const tapeContender = (folder, httpModule, coreModule) => {
    const at = (name) => join(dir, folder, `${name}.jsonl`)
    const contender = {
      async record(name, run) {
        const boundary = httpModule.installHttpBoundary({ modelEndpoints: [modelEndpoint] })
        const tape = await coreModule.openTape({
          id: name,
          cassettePath: at(name),
          store,
          mode: 'update',
          env: {},
        })
        await coreModule.runWithTape(tape, () => run(tapeTools(tape)))
        await tape.finish()
        await boundary.dispose()
        if (tape.failure()) throw tape.failure()
      },
      async open(name) {
        const boundary = httpModule.installHttpBoundary({ modelEndpoints: [modelEndpoint] })
        const tape = await coreModule.openTape({
          id: name,
          cassettePath: at(name),
          store,
          mode: 'replay',
          env: {},
        })
        return {
          run: (fn) => coreModule.runWithTape(tape, () => fn(tapeTools(tape))),
          async close() {
            await tape.finish()
            await boundary.dispose()
            if (tape.failure()) throw tape.failure()
          },
        }
      },
      files: (name) => [at(name)],
    }
    // `update` writes the cassette again when what was recorded changed.
    contender.rerecord = contender.record
    return contender
  }

  const contenders = {
    'agent-tape': tapeContender('agent-tape', { installHttpBoundary }, { openTape, runWithTape }),

    floor: {
      // The floor: an interceptor that answers every request with a recorded response, no
      // matching and no body read. No interception-based tool can be cheaper than this.
      async record(name, run) {
        const responses = []
        const interceptor = new FetchInterceptor()
        interceptor.on('response', async ({ response }) => {
          responses.push({
            status: response.status,
            headers: Object.fromEntries(response.headers),
            body: await response.clone().text(),
          })
        })
        interceptor.apply()
        await run(plainTools)
        interceptor.dispose()
        floorResponses.set(name, responses)
      },
      async open(name) {
        const responses = floorResponses.get(name)
        let next = 0
        const interceptor = new FetchInterceptor()
        interceptor.on('request', ({ controller }) => {
          const r = responses[next++ % responses.length]
          controller.respondWith(new Response(r.body, { status: r.status, headers: r.headers }))
        })
        interceptor.apply()
        return { run: (fn) => fn(plainTools), close: async () => interceptor.dispose() }
      },
      files: () => [],
    },

    polly: {
      async record(name, run) {
        const polly = new Polly(name, pollyConfig(pollyDir, 'record'))
        await run(plainTools)
        await polly.stop()
      },
      // Polly replaces the entries it sees again and drops the unused ones (keepUnusedRequests: false).
      async rerecord(name, run) {
        await this.record(name, run)
      },
      async open(name) {
        const polly = new Polly(name, pollyConfig(pollyDir, 'replay'))
        await polly.persister.findRecording(polly.recordingId) // load the HAR before timing
        return {
          run: (fn) => fn(plainTools),
          async close() {
            await polly.stop()
          },
        }
      },
      files: (name) => listFiles(pollyDir).filter((f) => f.includes(`${name.replace(/[^\w-]/g, '-')}_`)),
    },

    nock: {
      async record(name, run, mode = 'record') {
        nock.activate()
        nock.back.fixtures = nockDir
        nock.back.setMode(mode)
        const { nockDone } = await nock.back(`${name}.json`)
        await run(plainTools)
        nockDone()
        nock.cleanAll()
        nock.restore()
      },
      // `record` would load the existing fixture and record nothing; `update` removes it and records.
      async rerecord(name, run) {
        await this.record(name, run, 'update')
      },
      async open(name) {
        nock.activate()
        nock.back.fixtures = nockDir
        nock.back.setMode('lockdown')
        const { nockDone, context } = await nock.back(`${name}.json`)
        return {
          run: (fn) => fn(plainTools),
          async close() {
            nockDone()
            const pending = context.scopes.flatMap((s) => s.pendingMocks())
            nock.cleanAll()
            nock.enableNetConnect()
            nock.restore()
            if (pending.length > 0) throw new Error(`nock: ${pending.length} recorded requests unused`)
          },
        }
      },
      files: (name) => [join(nockDir, `${name}.json`)],
    },
  }
  if (http.baseline) contenders.baseline = tapeContender('baseline', http.baseline.http, http.baseline.core)
  return contenders
}

/** How an agent calls its tools: through the tape for agent-tape, directly for the others. */
const plainTools = { call: (_name, _args, fn) => fn() }
function tapeTools(tape) {
  return { call: (name, args, fn) => tape.tool(name, args, fn) }
}

function pollyConfig(recordingsDir, mode) {
  return {
    adapters: ['fetch'],
    persister: 'fs',
    persisterOptions: { fs: { recordingsDir } },
    mode,
    recordIfMissing: false,
    recordFailedRequests: true,
    logLevel: 'silent',
    flushRequestsOnStop: true,
  }
}

function listFiles(dir) {
  const out = []
  let entries = []
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return out
  }
  for (const e of entries) {
    const path = join(dir, e.name)
    if (e.isDirectory()) out.push(...listFiles(path))
    else out.push(path)
  }
  return out
}
