import { type CapturedFile, createCapture } from '@agent-tape/capture'
import { parseCassette } from '@agent-tape/core'
import { type GateItem, textOf } from './gate-items.js'
import { markerIn, type Outcome, type Surface } from './gate-tape.js'

/**
 * A captured run whose input, returned value or thrown error is the value: capture writes them
 * in the cassette's header (`source.input`, `source.outcome`), which a secret refuses whole, the
 * run dropped and counted. What it logs is printed for people too.
 */
async function throughCapture(
  items: readonly GateItem[],
  env: Record<string, string>,
  place: 'input' | 'outcome' | 'error',
): Promise<Outcome[]> {
  const files = new Map<string, CapturedFile>()
  const logs: string[] = []
  // A captured run reads the process's environment.
  const before = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]))
  Object.assign(process.env, env)
  const capture = createCapture({
    sink: (file) => {
      files.set(file.runName, file)
    },
    keep: 'all',
    log: (message) => logs.push(message),
  })
  try {
    await capture.ready()
    for (const [n, item] of items.entries()) {
      const name = `gate-${n}`
      if (place === 'input') await capture.run(name, { settings: item.form.value }, () => 'ok')
      else if (place === 'outcome') await capture.run(name, {}, () => ({ config: item.form.value }))
      else
        await capture
          .run(name, {}, () => {
            throw new Error(`could not connect: ${textOf(item)}`)
          })
          .catch(() => undefined)
    }
    await capture.flush()
  } finally {
    await capture.close()
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
  const { dropped } = capture.stats()
  const missing = items.length - files.size
  if (dropped.secret !== missing)
    throw new Error(
      `${missing} captured runs were not written, ${dropped.secret} of them for a secret: ${logs.join('\n')}`,
    )
  const printed = logs.join('\n')
  return items.map((item, n) => {
    const file = files.get(`gate-${n}`)
    if (!file)
      return { written: [], printed: item.printed(printed), refused: `capture dropped the run (${place})` }
    const outcome: Outcome = { written: item.written(file.text), printed: item.printed(printed) }
    const marked = markerIn(parseCassette(file.text, file.name).header.source, 'source')
    if (marked && !JSON.stringify(item.form.value).includes('REDACTED')) outcome.redacted = marked
    return outcome
  })
}

export const CAPTURE_SURFACES: Surface[] = [
  {
    name: 'a captured run’s input',
    secret: 'refused',
    run: (items, env) => throughCapture(items, env, 'input'),
  },
  {
    name: 'a captured run’s returned value',
    secret: 'refused',
    run: (items, env) => throughCapture(items, env, 'outcome'),
  },
  {
    name: 'a captured run’s thrown error',
    secret: 'refused',
    run: (items, env) => throughCapture(items, env, 'error'),
  },
]
