import { spawn } from 'node:child_process'
import autocannon from 'autocannon'
const variants = process.argv.slice(3)
const n = Number(process.argv[2])
const start = (args, label) => new Promise((resolve) => {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  const on = (d) => { out += d; const m = new RegExp(`^${label} (.+)$`, 'm').exec(out); if (m) { child.stdout.off('data', on); resolve({ child, value: m[1] }) } }
  child.stdout.on('data', on)
})
const ask = (child, cmd) => new Promise((resolve) => { let out=''; const on = (d) => { out += d; const m = new RegExp(`^${cmd} (.+)$`, 'm').exec(out); if (m) { child.stdout.off('data', on); resolve(JSON.parse(m[1])) } }; child.stdout.on('data', on); child.stdin.write(cmd + '\n') })
const provider = await start(['lib/capture-provider.mjs'], 'url')
const servers = {}
for (const v of variants) servers[v] = await start([process.env.SERVER ?? 'lib/server-exp-tmp.mjs', v, provider.value, '/tmp/capsmoke/cpudir-' + v], 'port')
const body = JSON.stringify({ ticket: 'INV-412: I was charged twice for my March invoice (42.00 EUR each time). Please refund the duplicate payment.' })
const res = Object.fromEntries(variants.map(v => [v, []]))
for (let round = 0; round < 4; round++) {
  for (const v of variants) {
    const before = await ask(servers[v].child, 'cpu')
    const r = await autocannon({ url: `http://127.0.0.1:${servers[v].value}/triage`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 200, amount: n })
    const after = await ask(servers[v].child, 'cpu')
    if (round > 0) res[v].push(((after.ms - before.ms) / (after.runs - before.runs)))
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
for (const v of variants) console.log(v.padEnd(10), 'cpu ms/run', med(res[v]).toFixed(2), res[v].map(x => x.toFixed(2)).join(' '))
for (const s of Object.values(servers)) s.child.kill()
provider.child.kill()
