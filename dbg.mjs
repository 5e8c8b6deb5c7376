import { main, createStyle } from 'agent-tape'
import { writeFileSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
const d = mkdtempSync(join(tmpdir(), 'x-'))
writeFileSync(join(d,'a.jsonl'), JSON.stringify({agentTape:2,keyScheme:1,test:'t',recordedAt:'2026-01-01T00:00:00.000Z'})+'\n'+JSON.stringify({seq:1,key:'tool:0123456789abcdef',kind:'tool',step:0,ms:1,in:{name:'configure',args:[{settings:'css'}]},out:{config:'css'}})+'\n')
let out=''
await main(['show','a.jsonl','--json'], {stdout:t=>out+=t, stderr:t=>out+=t, env:{}, cwd:d, style:createStyle(false)})
console.log(out.split('\n').filter(l=>l.includes('REDACTED')).join('\n'))
