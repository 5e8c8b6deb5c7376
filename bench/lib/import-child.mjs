/**
 * Run in a fresh `node` process by scenario 6: imports `vitest`, then the module given (what the
 * plugin's setup file imports: the setup's own code needs a Vitest worker), and prints the
 * milliseconds of each step as JSON. With `--count`, also counts the modules the
 * setup's imports load beyond `vitest` (the loader hook that counts them slows the import down).
 */
import { register } from 'node:module'
import { pathToFileURL } from 'node:url'
import { MessageChannel } from 'node:worker_threads'

const loaded = new Set()
if (process.argv.includes('--count')) {
  const { port1, port2 } = new MessageChannel()
  port1.on('message', (url) => loaded.add(url))
  port1.unref()
  const hook = `let port
export function initialize(data) { port = data.port }
export async function load(url, context, next) { port.postMessage(url); return next(url, context) }`
  register(`data:text/javascript,${encodeURIComponent(hook)}`, {
    data: { port: port2 },
    transferList: [port2],
  })
}

const imports = pathToFileURL(process.argv[2]).href

const count = process.argv.includes('--count')
let started = performance.now()
await import('vitest')
const vitest = performance.now() - started
if (count) await settle()
const base = new Set(loaded)
started = performance.now()
await import(imports)
const setup = performance.now() - started
if (count) await settle()
const modules = [...loaded].filter(
  (url) => !base.has(url) && url !== imports && !url.startsWith('node:'),
).length
process.stdout.write(JSON.stringify(count ? { modules } : { vitest, setup }))

/** Lets the loader hook's messages arrive. */
function settle() {
  return new Promise((resolve) => setTimeout(resolve, 50))
}
