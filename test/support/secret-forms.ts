import { gzipSync } from 'node:zlib'
import { type Gen, generator } from './secret-corpus.js'

/**
 * Secrets in the forms a program reads them in, not only as they look: JSON-escaped inside a
 * JSON text, encoded (base64, base64url, a data URL, a gzip body), carried by the name of the
 * field that holds them, next to characters a word-boundary rule would trip on, or next to a
 * placeholder word. Every value is generated from a seed at run time, so no secret-shaped
 * literal sits in the repository, and every run sees the same values.
 */

export type FormClass =
  | 'escaped'
  | 'encoded'
  | 'named'
  | 'boundary'
  | 'placeholder-neighbour'
  | 'member-name'
  | 'wrapped'
  | 'markup'
  | 'compatibility'

export interface Secret {
  value: string
  /** How many leading characters are a public prefix (`sk_live_`), which a message may show. */
  prefix: number
}

export interface SecretForm {
  id: string
  class: FormClass
  /** What the run carries: a string, or a JSON value whose member names make the secret. */
  value: unknown
  /** What a reader recovers from `value`: none of it may be written, or printed past 4 characters. */
  secrets: Secret[]
  /** The encodings of the secret as placed (a base64 blob, an escaped text): not written either. */
  encoded: string[]
  /** The environment of the run, for forms that carry a secret environment value. */
  env?: Record<string, string>
}

const b64 = (text: string) => Buffer.from(text).toString('base64')
const b64url = (text: string) => Buffer.from(text).toString('base64url')
const escapeAll = (text: string, chars: string) =>
  [...text]
    .map((c) => (chars.includes(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
    .join('')

/** A random credential with no shape of its own: only its name or its context says what it is. */
const plain = (g: Gen, n = 20) => `${g.alnum(n - 2)}${g.digits(1)}${g.letters(1)}`

type Build = (g: Gen) => Omit<SecretForm, 'id' | 'class'>

const FORMS: [string, FormClass, Build][] = [
  // A model's tool-call arguments are a JSON text: `\u005f` is `_` to the agent that parses them.
  [
    'stripe-key-u-escaped-in-arguments',
    'escaped',
    (g) => {
      const key = `sk_live_${g.alnum(40)}`
      const text = `{"v":"${escapeAll(key, '_')}"}`
      return { value: text, secrets: [{ value: key, prefix: 8 }], encoded: [text.slice(6, -2)] }
    },
  ],
  [
    'openai-key-dash-escaped',
    'escaped',
    (g) => {
      const key = `sk-proj-${g.dashed(60)}T3BlbkFJ${g.alnum(40)}`
      const text = `{"api_key":"${escapeAll(key, '-')}","region":"eu"}`
      return { value: text, secrets: [{ value: key, prefix: 8 }], encoded: [escapeAll(key, '-')] }
    },
  ],
  [
    'github-token-prefix-escaped',
    'escaped',
    (g) => {
      const body = g.alnum(36)
      const text = `{"token":"${escapeAll('ghp_', 'ghp_')}${body}"}`
      return { value: text, secrets: [{ value: `ghp_${body}`, prefix: 4 }], encoded: [] }
    },
  ],
  [
    'url-password-slash-escaped',
    'escaped',
    (g) => {
      const password = plain(g, 24)
      const text = `{"dsn":"postgres:\\/\\/app:${password}@db.internal:5432\\/app"}`
      return { value: text, secrets: [{ value: password, prefix: 0 }], encoded: [] }
    },
  ],
  [
    'password-member-escaped',
    'escaped',
    (g) => {
      const password = `${g.alnum(10)}@${g.alnum(9)}7`
      const text = `{"user":"ada","password":"${escapeAll(password, '@')}"}`
      return { value: text, secrets: [{ value: password, prefix: 0 }], encoded: [escapeAll(password, '@')] }
    },
  ],
  [
    'escaped-answer-text',
    'escaped',
    (g) => {
      const key = `sk_live_${g.alnum(36)}`
      const text = `Use the key sk\\u005flive\\u005f${key.slice(8)} for the refund.`
      return {
        value: text,
        secrets: [{ value: key, prefix: 8 }],
        encoded: [`sk\\u005flive\\u005f${key.slice(8, 20)}`],
      }
    },
  ],
  [
    'json-text-inside-json-text',
    'escaped',
    (g) => {
      const token = `xoxb-${g.digits(12)}-${g.digits(13)}-${g.alnum(24)}`
      const inner = JSON.stringify({ slack: { token: escapeAll(token, '-') } })
      const text = JSON.stringify({ payload: inner })
      return { value: text, secrets: [{ value: token, prefix: 5 }], encoded: [] }
    },
  ],
  [
    'env-value-escaped',
    'escaped',
    (g) => {
      const value = `${g.alnum(12)}_${g.alnum(12)}9`
      return {
        value: `{"note":"connected with ${escapeAll(value, '_')}"}`,
        secrets: [{ value, prefix: 0 }],
        encoded: [escapeAll(value, '_')],
        env: { BILLING_SERVICE_TOKEN: value },
      }
    },
  ],
  // Encodings a reader undoes.
  [
    'gzip-base64',
    'encoded',
    (g) => {
      const key = `sk-ant-api03-${g.alnum(20)}${g.dashed(73)}AA`
      const blob = gzipSync(Buffer.from(`config\nanthropic=${key}\n`)).toString('base64')
      return { value: blob, secrets: [{ value: key, prefix: 13 }], encoded: [blob] }
    },
  ],
  [
    'data-url',
    'encoded',
    (g) => {
      const key = `ghp_${g.alnum(36)}`
      const blob = b64(`GITHUB_TOKEN=${key}\n`)
      return {
        value: `Download: data:text/plain;base64,${blob} (expires soon)`,
        secrets: [{ value: key, prefix: 4 }],
        encoded: [blob],
      }
    },
  ],
  [
    'data-url-json',
    'encoded',
    (g) => {
      const secret = plain(g, 32)
      const blob = b64(JSON.stringify({ client_id: 'web', client_secret: secret }))
      return {
        value: `data:application/json;base64,${blob}`,
        secrets: [{ value: secret, prefix: 0 }],
        encoded: [blob],
      }
    },
  ],
  [
    'base64url-blob',
    'encoded',
    (g) => {
      const key = `xoxp-${g.digits(12)}-${g.digits(13)}-${g.alnum(32)}`
      const blob = b64url(JSON.stringify({ slack: key, scope: 'chat:write' }))
      return { value: blob, secrets: [{ value: key, prefix: 5 }], encoded: [blob] }
    },
  ],
  [
    'docker-auths',
    'encoded',
    (g) => {
      const password = plain(g, 22)
      const auth = b64(`deploy:${password}`)
      return {
        value: { auths: { 'registry.example.com': { auth } } },
        secrets: [{ value: password, prefix: 0 }],
        encoded: [auth],
      }
    },
  ],
  [
    'docker-auths-text',
    'encoded',
    (g) => {
      const password = plain(g, 22)
      const auth = b64(`ci-bot:${password}`)
      return {
        value: `{\n  "auths": {\n    "ghcr.io": {\n      "auth": "${auth}"\n    }\n  }\n}`,
        secrets: [{ value: password, prefix: 0 }],
        encoded: [auth],
      }
    },
  ],
  [
    'npmrc-auth',
    'encoded',
    (g) => {
      const password = plain(g, 20)
      const auth = b64(`publisher:${password}`)
      return {
        value: `registry=https://registry.example.com/\n//registry.example.com/:_auth=${auth}\nalways-auth=true\n`,
        secrets: [{ value: password, prefix: 0 }],
        encoded: [auth],
      }
    },
  ],
  [
    'base64-of-credentials-file',
    'encoded',
    (g) => {
      const secret = g.base64(40)
      const blob = b64(
        `[default]\naws_access_key_id = AKIA${g.upperDigits(16)}\naws_secret_access_key = ${secret}\n`,
      )
      return { value: blob, secrets: [{ value: secret, prefix: 0 }], encoded: [blob] }
    },
  ],
  [
    'env-value-base64',
    'encoded',
    (g) => {
      const value = `${g.alnum(14)}-${g.alnum(14)}`
      const blob = b64(`token: ${value}`)
      return {
        value: { attachment: blob },
        secrets: [{ value, prefix: 0 }],
        encoded: [blob],
        env: { WEBHOOK_SECRET: value },
      }
    },
  ],
  [
    'env-value-percent-encoded',
    'encoded',
    (g) => {
      const value = `${g.alnum(10)}/${g.alnum(10)}+${g.alnum(6)}`
      const encoded = encodeURIComponent(value)
      return {
        value: `https://hooks.example.com/notify?note=${encoded}`,
        secrets: [{ value, prefix: 0 }],
        encoded: [encoded],
        env: { NOTIFY_PASSWORD: value },
      }
    },
  ],
  // Credentials by the name of what holds them.
  ...(
    [
      'client_secret',
      'password',
      'api_key',
      'access_token',
      'refresh_token',
      'apiKey',
      'clientSecret',
    ] as const
  ).map((name): [string, FormClass, Build] => [
    `json-member-${name}`,
    'named',
    (g) => {
      const value = plain(g, 28)
      return { value: { user: 'ada', [name]: value }, secrets: [{ value, prefix: 0 }], encoded: [] }
    },
  ]),
  [
    'json-member-private-key-hex',
    'named',
    (g) => {
      const value = g.hex(64)
      return {
        value: { wallet: { address: `0x${g.hex(40)}`, private_key: value } },
        secrets: [{ value, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'jwk-rsa-private',
    'named',
    (g) => {
      const d = g.dashed(342)
      const p = g.dashed(171)
      const q = g.dashed(171)
      const dp = g.dashed(171)
      const dq = g.dashed(171)
      const qi = g.dashed(171)
      return {
        value: {
          keys: [
            {
              kty: 'RSA',
              kid: 'sig-1',
              use: 'sig',
              alg: 'RS256',
              n: g.dashed(342),
              e: 'AQAB',
              d,
              p,
              q,
              dp,
              dq,
              qi,
            },
          ],
        },
        secrets: [d, p, q, dp, dq, qi].map((value) => ({ value, prefix: 0 })),
        encoded: [],
      }
    },
  ],
  [
    'jwk-ec-private',
    'named',
    (g) => {
      const d = g.dashed(43)
      return {
        value: { kty: 'EC', crv: 'P-256', x: g.dashed(43), y: g.dashed(43), d },
        secrets: [{ value: d, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'jwk-oct',
    'named',
    (g) => {
      const k = g.dashed(43)
      return { value: { kty: 'oct', alg: 'HS256', k }, secrets: [{ value: k, prefix: 0 }], encoded: [] }
    },
  ],
  [
    'header-map-x-api-key',
    'named',
    (g) => {
      const value = plain(g, 32)
      return {
        value: { request: { headers: { 'X-Api-Key': value, Accept: 'application/json' } } },
        secrets: [{ value, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'netrc',
    'named',
    (g) => {
      const password = plain(g, 20)
      return {
        value: `machine api.example.com\n  login deploy\n  password ${password}\n`,
        secrets: [{ value: password, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'netrc-one-line',
    'named',
    (g) => {
      const password = plain(g, 20)
      return {
        value: `machine git.example.com login ci password ${password}`,
        secrets: [{ value: password, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'cookie-header-in-text',
    'named',
    (g) => {
      const session = g.alnum(40)
      return {
        value: `> GET /account HTTP/1.1\n> Cookie: theme=dark; session=${session}; lang=en\n`,
        secrets: [{ value: session, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'set-cookie-in-text',
    'named',
    (g) => {
      const sid = `${g.alnum(24)}.${g.alnum(20)}`
      return {
        value: `< HTTP/1.1 200 OK\n< Set-Cookie: connect.sid=s%3A${sid}; Path=/; HttpOnly; Secure\n`,
        secrets: [{ value: sid, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'azure-sas-url',
    'named',
    (g) => {
      const sig = `${g.base64(43)}=`
      return {
        value: `Uploaded: https://acme.blob.core.windows.net/exports/report.csv?sv=2024-08-04&se=2026-12-31T00%3A00%3A00Z&sr=b&sp=r&sig=${encodeURIComponent(sig)}`,
        secrets: [{ value: encodeURIComponent(sig), prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'gcs-signed-url',
    'named',
    (g) => {
      const signature = g.hex(512)
      return {
        value: `curl "https://storage.googleapis.com/acme/report.pdf?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=svc%40acme.iam.gserviceaccount.com%2F20261201%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261201T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=${signature}"`,
        secrets: [{ value: signature, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    's3-presigned-url',
    'named',
    (g) => {
      const signature = g.hex(64)
      const token = g.base64(200)
      return {
        value: `https://acme.s3.amazonaws.com/a.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIA${g.upperDigits(16)}%2F20261201%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261201T000000Z&X-Amz-Expires=3600&X-Amz-Security-Token=${encodeURIComponent(token)}&X-Amz-Signature=${signature}&X-Amz-SignedHeaders=host`,
        secrets: [
          { value: signature, prefix: 0 },
          { value: encodeURIComponent(token), prefix: 0 },
        ],
        encoded: [],
      }
    },
  ],
  [
    'yaml-password',
    'named',
    (g) => {
      const password = plain(g, 18)
      return {
        value: `database:\n  host: db.internal\n  user: app\n  password: ${password}\n`,
        secrets: [{ value: password, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'dotenv-line',
    'named',
    (g) => {
      const password = plain(g, 18)
      return {
        value: `NODE_ENV=production\nDB_PASSWORD=${password}\nPORT=3000`,
        secrets: [{ value: password, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'cli-flag',
    'named',
    (g) => {
      const token = plain(g, 30)
      return {
        value: `deploy --region eu-west-1 --auth-token=${token} --yes`,
        secrets: [{ value: token, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'authorization-token-scheme',
    'named',
    (g) => {
      const token = plain(g, 32)
      return {
        value: `> Authorization: Token ${token}\n> Accept: */*`,
        secrets: [{ value: token, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'truncated-json-text',
    'named',
    (g) => {
      const password = plain(g, 20)
      return {
        value: `{"user":"ada","password":"${password}","remember":tr`,
        secrets: [{ value: password, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  // Keys where a word-boundary rule would not look.
  [
    'telegram-token-in-url-path',
    'boundary',
    (g) => {
      const token = `${g.digits(9)}:AA${g.dashed(33)}`
      return {
        value: `POST https://api.telegram.org/bot${token}/sendMessage`,
        secrets: [{ value: token, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'github-token-after-letters',
    'boundary',
    (g) => {
      const token = `ghp_${g.alnum(36)}`
      return { value: `tokenghp_${token.slice(4)}`, secrets: [{ value: token, prefix: 4 }], encoded: [] }
    },
  ],
  [
    'google-key-after-letters',
    'boundary',
    (g) => {
      const key = `AIza${g.dashed(35)}`
      return { value: `mapskey${key}`, secrets: [{ value: key, prefix: 4 }], encoded: [] }
    },
  ],
  [
    'anthropic-key-after-underscore',
    'boundary',
    (g) => {
      const key = `sk-ant-api03-${g.alnum(20)}${g.dashed(73)}AA`
      return { value: `ANTHROPIC_${key}`, secrets: [{ value: key, prefix: 13 }], encoded: [] }
    },
  ],
  [
    'openrouter-key-before-underscore',
    'boundary',
    (g) => {
      const key = `sk-or-v1-${g.hex(64)}`
      return { value: `${key}_rotated`, secrets: [{ value: key, prefix: 9 }], encoded: [] }
    },
  ],
  [
    'npm-token-before-letters',
    'boundary',
    (g) => {
      const token = `npm_${g.alnum(36)}`
      return {
        value: `//registry.npmjs.org/:_authToken=${token}x`,
        secrets: [{ value: token, prefix: 4 }],
        encoded: [],
      }
    },
  ],
  [
    'stripe-key-in-url-path',
    'boundary',
    (g) => {
      const key = `rk_live_${g.alnum(40)}`
      return {
        value: `https://internal.example.com/keys/${key}/revoke`,
        secrets: [{ value: key, prefix: 8 }],
        encoded: [],
      }
    },
  ],
  [
    'slack-token-in-backticks',
    'boundary',
    (g) => {
      const token = `xoxb-${g.digits(12)}-${g.digits(13)}-${g.alnum(24)}`
      return {
        value: `Set \`${token}\` in the bot settings.`,
        secrets: [{ value: token, prefix: 5 }],
        encoded: [],
      }
    },
  ],
  [
    'groq-key-after-equals',
    'boundary',
    (g) => {
      const key = `gsk_${g.alnum(52)}`
      return { value: `export GROQ=${key}`, secrets: [{ value: key, prefix: 4 }], encoded: [] }
    },
  ],
  [
    'jwt-after-letters',
    'boundary',
    (g) => {
      const jwt = `eyJ${g.dashed(36)}.eyJ${g.dashed(60)}.${g.dashed(43)}`
      return { value: `sessionToken:eyJ${jwt.slice(3)}`, secrets: [{ value: jwt, prefix: 3 }], encoded: [] }
    },
  ],
  // A whole key next to a placeholder word is still a whole key.
  [
    'openai-key-then-xxxx',
    'placeholder-neighbour',
    (g) => {
      const key = `sk-proj-${g.dashed(74)}T3BlbkFJ${g.dashed(74)}`
      return { value: `${key}XXXX`, secrets: [{ value: key, prefix: 8 }], encoded: [] }
    },
  ],
  [
    'openai-key-then-example',
    'placeholder-neighbour',
    (g) => {
      const key = `sk-proj-${g.dashed(74)}T3BlbkFJ${g.dashed(74)}`
      return { value: `OPENAI_API_KEY=${key}-example`, secrets: [{ value: key, prefix: 8 }], encoded: [] }
    },
  ],
  [
    'fireworks-key-then-here',
    'placeholder-neighbour',
    (g) => {
      const key = `fw_${g.alnum(24)}`
      return { value: `${key}_here`, secrets: [{ value: key, prefix: 3 }], encoded: [] }
    },
  ],
  [
    'bearer-then-xxxx',
    'placeholder-neighbour',
    (g) => {
      const token = plain(g, 32)
      return {
        value: `Authorization: Bearer ${token}XXXX`,
        secrets: [{ value: token, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'password-then-placeholder-word',
    'placeholder-neighbour',
    (g) => {
      const password = plain(g, 20)
      return { value: `password=${password}-sample`, secrets: [{ value: password, prefix: 0 }], encoded: [] }
    },
  ],
  // A shaped token, or an environment secret, used as a member's name.
  [
    'github-token-as-member-name',
    'member-name',
    (g) => {
      const token = `ghp_${g.alnum(36)}`
      return {
        value: { tokens: { [token]: { scopes: ['repo', 'read:org'], note: 'ci' } } },
        secrets: [{ value: token, prefix: 4 }],
        encoded: [],
      }
    },
  ],
  [
    'openai-key-as-member-name-in-json-text',
    'member-name',
    (g) => {
      const key = `sk-proj-${g.dashed(74)}T3BlbkFJ${g.dashed(74)}`
      return {
        value: JSON.stringify({ usage: { [key]: { requests: 12 } } }),
        secrets: [{ value: key, prefix: 8 }],
        encoded: [],
      }
    },
  ],
  [
    'slack-token-as-nested-member-name',
    'member-name',
    (g) => {
      const token = `xoxb-${g.digits(12)}-${g.digits(13)}-${g.alnum(24)}`
      return {
        value: { workspaces: [{ name: 'acme', bots: { [token]: true } }] },
        secrets: [{ value: token, prefix: 5 }],
        encoded: [],
      }
    },
  ],
  [
    'env-value-as-member-name',
    'member-name',
    (g) => {
      const value = `${g.alnum(14)}-${g.alnum(14)}`
      return {
        value: { sessions: { [value]: { user: 'ada' } } },
        secrets: [{ value, prefix: 0 }],
        encoded: [],
        env: { SESSION_SECRET: value },
      }
    },
  ],
  // Tokens wrapped at a column, as PEM bodies, mail and some CLIs wrap them.
  ...(
    [
      ['openai-key-wrapped-at-64', 64, '', (g: Gen) => `sk-proj-${g.dashed(74)}T3BlbkFJ${g.dashed(74)}`, 8],
      ['jwt-wrapped-at-76', 76, '', (g: Gen) => `eyJ${g.dashed(36)}.eyJ${g.dashed(90)}.${g.dashed(43)}`, 3],
      [
        'anthropic-key-wrapped-after-name',
        76,
        'ANTHROPIC_API_KEY=',
        (g: Gen) => `sk-ant-api03-${g.alnum(20)}${g.dashed(73)}AA`,
        13,
      ],
      [
        'github-fine-grained-wrapped-crlf',
        64,
        'token: ',
        (g: Gen) => `github_pat_${g.alnum(22)}_${g.alnum(59)}`,
        11,
      ],
      ['aws-session-token-wrapped', 76, 'aws_session_token = ', (g: Gen) => g.base64(356), 0],
      ['atlassian-token-wrapped-indented', 64, '  ', (g: Gen) => `ATATT3${g.dashed(180)}`, 6],
    ] as const
  ).map(([id, width, lead, make, prefix]): [string, FormClass, Build] => [
    id,
    'wrapped',
    (g) => {
      const secret = make(g)
      const text = `${lead}${secret}`
      const lines: string[] = []
      for (let at = 0; at < text.length; at += width) lines.push(text.slice(at, at + width))
      const indent = lead.trim() === '' ? lead : ''
      const eol = id.endsWith('crlf') ? '\r\n' : '\n'
      const body = lines.map((line, i) => (i === 0 ? line : `${indent}${line}`)).join(eol)
      return {
        value: `Here is the credential:${eol}${body}${eol}Keep it safe.`,
        secrets: [{ value: secret, prefix }],
        encoded: [],
      }
    },
  ]),
  // Markup and tables: elements, attributes and columns named for a credential, and entities.
  [
    'maven-settings-password',
    'markup',
    (g) => {
      const password = plain(g, 20)
      return {
        value: `<settings>\n  <servers>\n    <server>\n      <id>releases</id>\n      <username>deploy</username>\n      <password>${password}</password>\n    </server>\n  </servers>\n</settings>`,
        secrets: [{ value: password, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'dotnet-appsettings-add-key',
    'markup',
    (g) => {
      const value = plain(g, 32)
      return {
        value: `<configuration><appSettings><add key="Environment" value="prod"/><add key="ApiKey" value="${value}"/></appSettings></configuration>`,
        secrets: [{ value, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'xml-element-cdata-client-secret',
    'markup',
    (g) => {
      const value = plain(g, 30)
      return {
        value: `<oauth><clientId>web</clientId><ns1:ClientSecret><![CDATA[${value}]]></ns1:ClientSecret></oauth>`,
        secrets: [{ value, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'java-properties-xml-entry',
    'markup',
    (g) => {
      const value = plain(g, 22)
      return {
        value: `<properties><entry key="db.user">app</entry><entry key="db.password">${value}</entry></properties>`,
        secrets: [{ value, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'html-entities-json-in-attribute',
    'markup',
    (g) => {
      const value = plain(g, 28)
      return {
        value: `<div id="app" data-config="{&quot;region&quot;:&quot;eu&quot;,&quot;api_key&quot;:&quot;${value}&quot;}"></div>`,
        secrets: [{ value, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'html-numeric-entities-in-key',
    'markup',
    (g) => {
      const key = `sk_live_${g.alnum(40)}`
      const spelled = key.replace(/_/g, '&#95;')
      return {
        value: `<code>${spelled}</code>`,
        secrets: [{ value: key, prefix: 8 }],
        encoded: [spelled],
      }
    },
  ],
  [
    'html-hex-entities-quoted-json',
    'markup',
    (g) => {
      const value = plain(g, 26)
      return {
        value: `<script type="application/json" data-x="{&#x22;client_secret&#x22;:&#x22;${value}&#x22;}"></script>`,
        secrets: [{ value, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'csv-credential-column',
    'markup',
    (g) => {
      const a = plain(g, 24)
      const b = plain(g, 24)
      return {
        value: `name,email,api_key,plan\nada,ada@example.com,${a},pro\ngrace,grace@example.com,"${b}",free\n`,
        secrets: [
          { value: a, prefix: 0 },
          { value: b, prefix: 0 },
        ],
        encoded: [],
      }
    },
  ],
  [
    'tsv-password-column',
    'markup',
    (g) => {
      const password = plain(g, 18)
      return {
        value: `Export follows:\nhost\tuser\tpassword\ndb1.internal\tapp\t${password}\n`,
        secrets: [{ value: password, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  [
    'markdown-table-token-column',
    'markup',
    (g) => {
      const token = g.alnum(40)
      return {
        value: `| service | access_token |\n| --- | --- |\n| billing | ${token} |\n`,
        secrets: [{ value: token, prefix: 0 }],
        encoded: [],
      }
    },
  ],
  // Characters that read as a key once a program folds them (NFKC), or that hide inside one.
  [
    'full-width-openai-key',
    'compatibility',
    (g) => {
      const key = `sk-proj-${g.dashed(74)}T3BlbkFJ${g.alnum(40)}`
      const wide = [...key]
        .map((c) => (c >= '!' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c))
        .join('')
      return { value: `key: ${wide}`, secrets: [{ value: key, prefix: 8 }], encoded: [wide] }
    },
  ],
  [
    'full-width-github-prefix',
    'compatibility',
    (g) => {
      const body = g.alnum(36)
      return {
        value: `\uff47\uff48\uff50\uff3f${body}`,
        secrets: [{ value: `ghp_${body}`, prefix: 4 }],
        encoded: [],
      }
    },
  ],
  [
    'zero-width-space-in-stripe-key',
    'compatibility',
    (g) => {
      const key = `sk_live_${g.alnum(40)}`
      const hidden = `${key.slice(0, 8)}\u200b${key.slice(8, 24)}\u200b${key.slice(24)}`
      return { value: `Use ${hidden} for billing.`, secrets: [{ value: key, prefix: 8 }], encoded: [] }
    },
  ],
  [
    'mathematical-letters-anthropic-prefix',
    'compatibility',
    (g) => {
      const key = `sk-ant-api03-${g.alnum(20)}${g.dashed(73)}AA`
      const bold = (c: string) =>
        c >= 'a' && c <= 'z' ? String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97) : c
      const shown = `${[...'sk'].map(bold).join('')}${key.slice(2)}`
      return { value: shown, secrets: [{ value: key, prefix: 13 }], encoded: [] }
    },
  ],
]

/** Every secret form, each generated from its own seed. */
export const SECRET_FORMS: readonly SecretForm[] = FORMS.map(([id, kind, build], i) => ({
  id,
  class: kind,
  ...build(generator(5000 + i)),
}))

/** The value as text, for places that carry text (a streamed answer, an error message). */
export function formText(form: SecretForm): string {
  return typeof form.value === 'string' ? form.value : JSON.stringify(form.value)
}

function pieces(text: string, length: number): string[] {
  if (text.length <= length) return [text]
  const out = new Set<string>()
  for (let at = 0; at + length <= text.length; at++) out.add(text.slice(at, at + length))
  return [...out]
}

/** Every string in a JSON Lines file, as its readers get them (escapes undone). */
function stringsOf(fileText: string): string {
  const out: string[] = []
  const visit = (value: unknown) => {
    if (typeof value === 'string') out.push(value)
    else if (Array.isArray(value)) value.forEach(visit)
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit)
  }
  for (const line of fileText.split('\n')) {
    if (!line.trim()) continue
    try {
      visit(JSON.parse(line))
    } catch {
      out.push(line)
    }
  }
  return out.join('\n')
}

/**
 * The pieces of a form a written file holds: a 16-character piece of any secret (outside its
 * public prefix) or of any encoding of it, in the file's text or in its strings.
 */
export function writtenPieces(fileText: string, form: SecretForm): string[] {
  const haystacks = [fileText, stringsOf(fileText)]
  const needles = [
    ...form.secrets.flatMap((s) => pieces(s.value.slice(Math.max(0, s.prefix - 8)), 16)),
    ...form.encoded.flatMap((e) => pieces(e, 16)),
  ]
  return needles.filter((n) => haystacks.some((h) => h.includes(n)))
}

/** Pieces of a secret longer than 4 characters, outside its public prefix, that a printed text shows. */
export function printedPieces(text: string, form: SecretForm): string[] {
  const shown: string[] = []
  for (const { value, prefix } of form.secrets) {
    // Five hex digits turn up by chance in any page of keys and hashes; six do not.
    const length = /^[0-9a-f]+$/.test(value) ? 6 : 5
    for (let at = Math.max(0, prefix - 4); at + length <= value.length; at++) {
      const piece = value.slice(at, at + length)
      if (/[\n\\]|^[-=]+$/.test(piece)) continue
      if (text.includes(piece)) shown.push(piece)
    }
  }
  for (const e of form.encoded) for (const piece of pieces(e, 16)) if (text.includes(piece)) shown.push(piece)
  return shown
}
