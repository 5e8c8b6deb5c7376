import { describe, expect, it } from 'vitest'
import { SecretScanner } from './scanner.js'
import { credentialCells } from './tables.js'
import { unwrapped } from './wrapped.js'

// Built at run time so that no secret-shaped literal sits in the repository.
const repeat = (body: string, n: number) => body.repeat(n)
const OPENAI = `sk-proj-${repeat('Ab3dE_x9Kq', 8)}T3BlbkFJ${repeat('Zx8Yw', 8)}`
const JWT = `eyJ${repeat('hbGci7', 8)}.eyJ${repeat('zdWIi4', 14)}.${repeat('s1gNa', 9)}`
const PASSWORD = 'Xq7vT2mP9wLk4Rz8'
const MACHINE_MADE = `Lp3${PASSWORD}Tz6${PASSWORD.split('').reverse().join('')}`
const redact = (text: string) => new SecretScanner().redactText(text)
const wrap = (text: string, width: number, eol = '\n', indent = '') =>
  (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(`${eol}${indent}`)

describe('wrapped tokens', () => {
  it.each([
    ['a key wrapped at 64', wrap(OPENAI, 64)],
    ['a key wrapped at 76 with CRLF', wrap(OPENAI, 76, '\r\n')],
    ['a JWT wrapped at 76', wrap(JWT, 76)],
    ['a JWT wrapped at 40', wrap(JWT, 40)],
    ['a key wrapped after its name', wrap(`OPENAI_API_KEY=${OPENAI}`, 64)],
    ['an indented continuation', wrap(`token: ${JWT}`, 64, '\n', '    ')],
    ['a wrapped key inside prose', `Your key:\n${wrap(OPENAI, 64)}\nKeep it safe.`],
  ])('%s is redacted whole, across its lines', (_, text) => {
    const redacted = redact(text)
    expect(redacted).toContain('[REDACTED:')
    for (const line of text.split(/\r?\n/).filter((l) => !l.includes(' ') || l.startsWith(' '))) {
      const body = line.trim().replace(/^(?:OPENAI_API_KEY=|token: )/, '')
      if (body.length >= 12) expect(redacted, body).not.toContain(body.slice(-12))
    }
  })

  it('joins only the breaks of long lines that end inside a token', () => {
    expect(unwrapped('short line\nnext')).toBeUndefined()
    expect(unwrapped(`${'a'.repeat(30)}\n${'b'.repeat(30)}`)).toBeUndefined()
    const prose = 'The integration uses short-lived credentials issued per request by\nthe gateway.'
    expect(unwrapped(prose)).toBeUndefined()
    // A setting's `=` ends its name, and a line ending in `=` (base64's padding) ends a blob.
    expect(unwrapped(`${'x'.repeat(20)} NAME=${'v'.repeat(8)}==\n${'w'.repeat(20)}`)).toBeUndefined()
    const joined = unwrapped(`${'A'.repeat(64)}\n  ${'B'.repeat(10)}`)!
    expect(joined.text).toBe(`${'A'.repeat(64)}${'B'.repeat(10)}`)
    expect(joined.original(63)).toBe(63)
    expect(joined.original(64)).toBe(67)
    expect(joined.joins(60, 70)).toBe(true)
    expect(joined.joins(0, 64)).toBe(false)
  })

  it('finds nothing new in wrapped text that holds no secret', () => {
    const certificate = `-----BEGIN CERTIFICATE-----\n${wrap(repeat('MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0B', 6), 64)}\n-----END CERTIFICATE-----`
    expect(redact(certificate)).toBe(certificate)
    const paths = `/home/runner/work/acme/node_modules/.pnpm/some-long-package-name@1.2.3\n/home/runner/work/acme/node_modules/.pnpm/another-package@4.5.6`
    expect(redact(paths)).toBe(paths)
  })
})

describe('tables', () => {
  it.each([
    ['CSV', `name,email,api_key\nada,ada@example.com,${PASSWORD}\n`],
    ['CSV with a quoted cell', `name,api_key,note\nada,"${PASSWORD}","a, b"\n`],
    ['CSV after prose on its line', `could not import: user,password\nada,${PASSWORD}`],
    ['TSV', `host\tuser\tpassword\ndb1\tapp\t${PASSWORD}\n`],
    ['semicolons', `host;client_secret\napi;${PASSWORD}\n`],
    ['Markdown', `| service | password |\n| --- | :---: |\n| db | ${PASSWORD} |\n`],
    ['Markdown after prose', `Here: | service | secret |\n|---|---|\n| db | ${PASSWORD} |`],
    ['a token column with a machine-made value', `service,token\nbilling,${MACHINE_MADE}\n`],
  ])('a column named for a credential: %s', (_, text) => {
    expect(redact(text)).not.toContain(PASSWORD.slice(0, 12))
    expect(redact(text)).not.toContain(MACHINE_MADE.slice(0, 12))
    expect(credentialCells(text)).toHaveLength(1)
  })

  it.each([
    ['token counts', 'model,prompt_tokens,total_tokens\ngpt-4o,1200,1540\n'],
    ['policy limits', 'policy,password_min_length,password_max_age_days\ndefault,12,90\n'],
    ['secret names', 'name,secret_name\ndb,prod/db/password\n'],
    ['a token column of words', 'token,logprob\nHello,-0.01\nworld,-0.3\n'],
    ['a key column of ids', 'key,summary\nPROJ-412,Rotate credentials\n'],
    ['a header with no rows', 'name,api_key\n'],
    ['rows that stop matching the header', `name,password\nnotes follow here, ${PASSWORD}, and more`],
  ])('is not a credential: %s', (_, text) => {
    expect(credentialCells(text)).toEqual([])
  })
})

describe('markup', () => {
  it.each([
    ['an element', `<password>${PASSWORD}</password>`],
    ['an element with a namespace and attributes', `<ns:ClientSecret kind="x">${PASSWORD}</ns:ClientSecret>`],
    ['CDATA', `<apiKey><![CDATA[${PASSWORD}]]></apiKey>`],
    ['an entry named by its key', `<entry key="db.password">${PASSWORD}</entry>`],
    ['an add key/value pair', `<add key="ApiKey" value="${PASSWORD}"/>`],
    ['a pair whose value comes first', `<param value="${PASSWORD}" name="client_secret"/>`],
    ['a password input', `<input type="password" name="pw" value="${PASSWORD}">`],
    ['whitespace around the value', `<password>\n  ${PASSWORD}\n</password>`],
  ])('%s', (_, text) => {
    expect(redact(text)).not.toContain(PASSWORD)
  })

  it.each([
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Maven's property syntax
    ['a property reference', '<password>${env.MAVEN_PASSWORD}</password>'],
    ['a setting that describes one', '<add key="PasswordMinLength" value="12"/>'],
    ['a header name', '<add key="ApiKeyHeader" value="x-api-key"/>'],
    ['a token type', '<tokenType>Bearer</tokenType>'],
    ['a stand-in word', '<password>changeme</password>'],
  ])('leaves %s alone', (_, text) => {
    expect(redact(text)).toBe(text)
  })
})

describe('spellings', () => {
  const stripe = `sk_live_${repeat('Qw7eR', 8)}`
  it.each([
    ['named entities', `<div data-x="{&quot;api_key&quot;:&quot;${PASSWORD}&quot;}">`, PASSWORD],
    ['decimal entities', `{&#34;password&#34;:&#34;${PASSWORD}&#34;}`, PASSWORD],
    ['hex entities', `{&#x22;client_secret&#x22;:&#x22;${PASSWORD}&#x22;}`, PASSWORD],
    ['an entity inside a key', stripe.replace(/_/g, '&#95;'), stripe.slice(8, 24)],
    ['named underscores', stripe.replace(/_/g, '&lowbar;'), stripe.slice(8, 24)],
    [
      'full-width letters',
      [...stripe].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join(''),
      [...stripe.slice(8, 16)].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join(''),
    ],
    ['a zero-width space', `${stripe.slice(0, 10)}\u200b${stripe.slice(10)}`, stripe.slice(10, 26)],
    ['a soft hyphen', `${stripe.slice(0, 3)}\u00ad${stripe.slice(3)}`, stripe.slice(10, 26)],
    [
      'mathematical letters',
      `${String.fromCodePoint(0x1d42c, 0x1d424)}${stripe.slice(2)}`,
      stripe.slice(10, 26),
    ],
  ])('%s', (_, text, piece) => {
    expect(new SecretScanner().hasSecret(text)).toBe(true)
    expect(redact(text)).not.toContain(piece)
  })

  it.each([
    ['prose entities', '<p>Use &quot;Sign in&quot; &amp; then &lt;Settings&gt; &#8594; API keys.</p>'],
    ['full-width Japanese', 'ＡＰＩキーは設定画面で発行します（ｓｋ－で始まります）。'],
    ['ligatures', 'The ﬁrst ﬂow uses x² at 25 ℃.'],
    ['emoji sequences', 'Team: 👩‍💻 👨‍👩‍👧'],
  ])('leaves %s alone', (_, text) => {
    expect(redact(text)).toBe(text)
  })
})

describe('member names', () => {
  const token = `ghp_${repeat('a1B2c3', 6)}`

  it('redacts a token used as a name, and keeps two such names apart', () => {
    const other = `ghp_${repeat('Z9y8X7', 6)}`
    const redacted = new SecretScanner().redactJson({ tokens: { [token]: { scopes: ['repo'] }, [other]: 1 } })
    const text = JSON.stringify(redacted)
    expect(text).not.toContain(token.slice(4))
    expect(text).not.toContain(other.slice(4))
    expect(Object.keys((redacted as { tokens: object }).tokens)).toHaveLength(2)
    expect((redacted as { tokens: Record<string, unknown> }).tokens['[REDACTED:github-token]']).toEqual({
      scopes: ['repo'],
    })
  })

  it('reports it at its parent, never spelling it in the path', () => {
    const findings = new SecretScanner().findInJson({ tokens: { [token]: { note: 'ci' } } })
    expect(findings).toHaveLength(1)
    expect(findings[0]!.path).toBe('tokens (the name of a member)')
    expect(JSON.stringify(findings)).not.toContain(token.slice(8))
  })

  it('reads the names inside a JSON text, and an environment value used as a name', () => {
    const scanner = new SecretScanner([{ name: 'SESSION_SECRET', value: 'Qz8xW2vB7nM4kL1p' }])
    expect(scanner.hasSecret(JSON.stringify({ usage: { [OPENAI]: 1 } }))).toBe(true)
    expect(scanner.findInJson({ sessions: { Qz8xW2vB7nM4kL1p: {} } })).toHaveLength(1)
  })

  it('leaves names that are ids, hashes, paths and models alone', () => {
    const value = {
      '3f2a9c1d8b4e0d7a6c5b4a39281706f5e4d3c2b1': 1,
      '3b241101-e2bb-4255-8caf-4136c566a962': 2,
      'src/auth/token.ts': 3,
      'gpt-4o-mini-2024-07-18': 4,
      ' Hello': 5,
    }
    expect(new SecretScanner().redactJson(value)).toBe(value)
  })
})

describe('texts a pattern could stall on', () => {
  // A placeholder tail once split a run of marks every way it could: `sk-` and 50 `x` took 82 s.
  it.each(['x', 'X', '*', '.', '…'])('reads a key masked with a long run of %s at once', (mark) => {
    for (const n of [50, 400, 4000]) {
      const text = `sk-${mark.repeat(n)}abcd`
      expect(new SecretScanner().redactText(text)).toBe(text)
    }
  })
})

describe("agent-tape's own markers", () => {
  it.each([
    'https://[REDACTED:$AGENT_TAPE_ARG_4]@o1.ingest.example.io/42',
    'postgres://app:[REDACTED:$DB_PASSWORD]@db.internal:5432/app',
    '{"password":"[REDACTED:credential-name]","token":"[REDACTED:github-token]"}',
  ])('are no secrets: %s', (text) => {
    expect(new SecretScanner().matches(text)).toEqual([])
  })

  it('do not hide a secret beside them', () => {
    const key = `ghp_${repeat('a1B2c3', 6)}`
    expect(redact(`[REDACTED:openai-key] ${key}`)).toBe('[REDACTED:openai-key] [REDACTED:github-token]')
  })
})

describe('bytes and blobs of any size', () => {
  it('reads bytes too short for the base64 view, as a cassette stores them', () => {
    const scanner = new SecretScanner([{ name: 'MY_SERVICE_TOKEN', value: 'Qz8xW2vB7n' }])
    const value = { out: { $bytes: Buffer.from('Qz8xW2vB7n').toString('base64'), type: 'Buffer' } }
    expect(scanner.findInJson(value).map((f) => f.path)).toEqual(['out.$bytes (base64-decoded)'])
    expect(JSON.stringify(scanner.redactJson(value))).not.toContain(value.out.$bytes)
    // A member named so in data of its own is no marker: read as any string.
    expect(scanner.findInJson({ $bytes: value.out.$bytes })).toEqual([])
  })

  it('reads a blob of megabytes without running out of stack, and finds a key inside it', () => {
    const filler = Buffer.alloc(4 * 1024 * 1024, 7)
    const clean = filler.toString('base64')
    expect(new SecretScanner().hasSecret(clean)).toBe(false)
    const key = `ghp_${repeat('a1B2c3', 6)}`
    const holding = Buffer.concat([filler, Buffer.from(`\n${key}\n`), filler]).toString('base64')
    expect(new SecretScanner().hasSecret(holding)).toBe(true)
    const prose = `log: ${'x'.repeat(3 * 1024 * 1024)} token ${key} end`
    expect(new SecretScanner().redactText(prose)).not.toContain(key.slice(4))
  })
})
