import { SecretScanner } from '@agent-tape/core/internal'
const J='eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'
const v = `Try it at jwt.io: ${J}`
const a = Math.floor(v.length/3)
const s = new SecretScanner()
for (const p of [v.slice(0,a), v.slice(a,2*a), v.slice(2*a)]) console.log(JSON.stringify(p), s.findInJson({p}))
const pg = JSON.stringify({ next_page_token: 'CiAKGjBpNDd2Nmp2Zml2cXRyaWwSAggQGgkIAhCAgICA', nextToken: 'eyJsYXN0IjoiSU5WLTQxMiJ9' })
const b = Math.floor(pg.length/3)
for (const p of [pg.slice(0,b), pg.slice(b,2*b), pg.slice(2*b)]) console.log(JSON.stringify(p), s.findInJson({p}))
