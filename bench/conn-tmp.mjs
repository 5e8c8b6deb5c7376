import { spawn } from 'node:child_process'
import autocannon from 'autocannon'
const variant = process.argv[2]
const start = (args, label) => new Promise((resolve) => {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => { out += d; const m = new RegExp(`^${label} (.+)$`, 'm').exec(out); if (m) { out = ''; resolve({ child, value: m[1] }) } })
})
const provider = await start(['lib/capture-provider.mjs'], 'url')
const server = await start(['lib/server-exp-tmp.mjs', variant, provider.value, '/tmp/capsmoke/conndir'], 'port')
const body = JSON.stringify({ ticket: 'INV-412: charged twice' })
const r = await autocannon({ url: `http://127.0.0.1:${server.value}/triage`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 50, amount: 1000 })
const c = await new Promise((resolve) => { let out=''; provider.child.stdout.on('data', (d) => { out += d; const m = /connections (\d+) (\d+)/.exec(out); if (m) resolve(m) }); provider.child.stdin.write('connections\n') })
console.log(variant, 'rps', r.requests.average, 'connections', c[1], 'requests', c[2])
server.child.kill(); provider.child.kill()
