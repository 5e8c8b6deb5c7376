import { register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
const { port1, port2 } = new MessageChannel()
const urls = []
port1.on('message', (u) => urls.push(u))
port1.unref()
register('data:text/javascript,' + encodeURIComponent(`let port; export function initialize(d){port=d.port} export async function load(url,c,next){port.postMessage(url); return next(url,c)}`), { data: { port: port2 }, transferList: [port2] })
const mods = process.argv.slice(2)
for (const m of mods) await import(m)
await new Promise((r) => setTimeout(r, 50))
const groups = new Map()
for (const u of urls) {
  if (u.startsWith('node:')) continue
  const k = u.replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\/((@[^/]+\/)?[^/]+)\/.*/, '$1').replace(/.*\/packages\/([^/]+)\/.*/, '@agent-tape/$1')
  groups.set(k, (groups.get(k) ?? 0) + 1)
}
console.log('modules', urls.filter((u) => !u.startsWith('node:')).length, 'builtins', urls.filter((u) => u.startsWith('node:')).length)
console.log([...groups].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join('\n'))
if (process.env.LIST) console.log(urls.filter(u => u.includes(process.env.LIST)).join('\n'))
