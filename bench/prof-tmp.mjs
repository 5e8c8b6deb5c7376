import { spawn } from 'node:child_process'
import autocannon from 'autocannon'
const variant = process.argv[2]
const start = (args, label) => new Promise((resolve) => {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => { out += d; const m = new RegExp(`^${label} (\\S+)$`, 'm').exec(out); if (m) resolve({ child, value: m[1] }) })
})
const provider = await start(['lib/capture-provider.mjs'], 'url')
const server = await start(['--cpu-prof', '--cpu-prof-dir=/tmp/capsmoke/prof-' + variant, '-e', `process.on('SIGTERM', () => process.exit(0)); process.argv.splice(1, 0, 'x'); await import('./lib/server-exp-tmp.mjs')`, '--input-type=module', variant, provider.value, '/tmp/capsmoke/profdir'], 'port')
const body = JSON.stringify({ ticket: 'INV-412: I was charged twice for my March invoice (42.00 EUR each time). Please refund the duplicate payment.' })
const r = await autocannon({ url: `http://127.0.0.1:${server.value}/triage`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 50, amount: 3000 })
console.log(variant, r.requests.average, r.latency.p50)
server.child.kill('SIGTERM'); provider.child.kill()
await new Promise((r) => setTimeout(r, 1500))
