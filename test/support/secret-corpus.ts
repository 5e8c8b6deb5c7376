/**
 * The secret corpus: one sample per secret shape agent-tape must never write or print, and the
 * look-alikes it must leave alone. Every value is generated at run time from a seeded generator,
 * so no secret-shaped literal sits in the repository and every run sees the same values.
 */

export interface SecretSample {
  /** A name for the shape, e.g. `openai-project-key`. */
  id: string
  /** The secret itself: none of it may reach a cassette, and no more than 4 characters a message. */
  secret: string
  /** The secret as it appears in text (with the keyword a context rule needs). */
  text: string
  /** How many leading characters of `secret` are a public prefix (`sk-proj-`, `https://hooks…`). */
  prefix: number
}

export function generator(seed: number) {
  let state = seed >>> 0
  const next = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const from = (alphabet: string) => (n: number) => {
    let out = ''
    for (let i = 0; i < n; i++) out += alphabet[Math.floor(next() * alphabet.length)]
    return out
  }
  const lower = 'abcdefghijklmnopqrstuvwxyz'
  const upper = lower.toUpperCase()
  const digits = '0123456789'
  return {
    alnum: from(lower + upper + digits),
    dashed: from(`${lower}${upper}${digits}-_`),
    hex: from('0123456789abcdef'),
    upperDigits: from(upper + digits),
    lowerDigits: from(lower + digits),
    letters: from(lower + upper),
    digits: from(digits),
    base64: from(`${lower}${upper}${digits}+/`),
    bech32: from('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L'),
  }
}

export type Gen = ReturnType<typeof generator>

/** A sample whose whole text is the secret, after a public prefix. */
function token(id: string, prefix: string, body: (g: Gen) => string): (g: Gen) => SecretSample {
  return (g) => {
    const secret = prefix + body(g)
    return { id, secret, text: secret, prefix: prefix.length }
  }
}

/** A sample whose secret needs the text around it (`context` holds `$` where the secret goes). */
function inContext(id: string, context: string, body: (g: Gen) => string): (g: Gen) => SecretSample {
  return (g) => {
    const secret = body(g)
    return { id, secret, text: context.replace('$', secret), prefix: 0 }
  }
}

/** A key block whose body starts as real ones do (a DER sequence, or the OpenSSH magic). */
function pem(label: string, g: Gen): string {
  const start = label.startsWith('OPENSSH')
    ? 'b3BlbnNzaC1rZXktdjEAAAAA'
    : label.startsWith('EC')
      ? 'MHcCAQEE'
      : 'MIIEvQIB'
  const lines = Array.from({ length: 6 }, (_, i) =>
    i === 0 ? start + g.base64(64 - start.length) : g.base64(64),
  )
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n${g.base64(20)}==\n-----END ${label}-----\n`
}

const PEM_PREFIX = (label: string) => `-----BEGIN ${label}-----\n`.length

const SHAPES: ((g: Gen) => SecretSample)[] = [
  // OpenAI keys carry "T3BlbkFJ" (base64 of "OpenAI") in the middle.
  token('openai-legacy-key', 'sk-', (g) => `${g.alnum(20)}T3BlbkFJ${g.alnum(20)}`),
  token('openai-project-key', 'sk-proj-', (g) => `${g.dashed(74)}T3BlbkFJ${g.dashed(74)}`),
  token('openai-service-account-key', 'sk-svcacct-', (g) => `${g.dashed(58)}T3BlbkFJ${g.dashed(58)}`),
  token('openai-admin-key', 'sk-admin-', (g) => `${g.dashed(74)}T3BlbkFJ${g.dashed(74)}`),
  token('anthropic-key', 'sk-ant-api03-', (g) => `${g.alnum(20)}${g.dashed(73)}AA`),
  token('anthropic-admin-key', 'sk-ant-admin01-', (g) => `${g.alnum(30)}${g.dashed(63)}AA`),
  token('openrouter-key', 'sk-or-v1-', (g) => g.hex(64)),
  token('deepseek-key', 'sk-', (g) => g.hex(32)),
  token('groq-key', 'gsk_', (g) => g.alnum(52)),
  token('xai-key', 'xai-', (g) => g.alnum(80)),
  token('huggingface-token', 'hf_', (g) => g.letters(34)),
  token('perplexity-key', 'pplx-', (g) => g.alnum(48)),
  token('replicate-token', 'r8_', (g) => g.alnum(37)),
  token('fireworks-key', 'fw_', (g) => g.alnum(24)),
  token('together-key', 'tgp_v1_', (g) => g.dashed(43)),
  token('nvidia-key', 'nvapi-', (g) => g.dashed(64)),
  token('cerebras-key', 'csk-', (g) => g.lowerDigits(48)),
  token('tavily-key', 'tvly-dev-', (g) => g.alnum(32)),
  token('pinecone-key', 'pcsk_', (g) => `${g.alnum(6)}_${g.alnum(63)}`),
  token('langsmith-key', 'lsv2_pt_', (g) => `${g.hex(32)}_${g.hex(10)}`),
  token('google-api-key', 'AIza', (g) => g.dashed(35)),
  token('google-oauth-access-token', 'ya29.', (g) => g.dashed(150)),
  token('google-oauth-refresh-token', '1//0', (g) => g.dashed(100)),
  token('google-oauth-client-secret', 'GOCSPX-', (g) => g.dashed(28)),
  token('aws-access-key-id', 'AKIA', (g) => g.upperDigits(16)),
  inContext('aws-secret-access-key', 'aws_secret_access_key = $', (g) => g.base64(40)),
  inContext('aws-secret-key-beside-id', 'AKIAZ7QX2M4N6P8R0T1V,$', (g) => g.base64(40)),
  inContext('aws-session-token', 'AWS_SESSION_TOKEN=$', (g) => g.base64(320)),
  inContext(
    'azure-storage-key',
    'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=$;EndpointSuffix=core.windows.net',
    (g) => `${g.base64(86)}==`,
  ),
  token('digitalocean-token', 'dop_v1_', (g) => g.hex(64)),
  token('databricks-token', 'dapi', (g) => g.hex(32)),
  token('heroku-key', 'HRKU-', (g) => g.dashed(60)),
  token('supabase-token', 'sbp_', (g) => g.hex(40)),
  token('terraform-token', '', (g) => `${g.alnum(14)}.atlasv1.${g.dashed(70)}`),
  token('pulumi-token', 'pul-', (g) => g.hex(40)),
  token('doppler-token', 'dp.pt.', (g) => g.alnum(43)),
  token('github-classic-token', 'ghp_', (g) => g.alnum(36)),
  token('github-oauth-token', 'gho_', (g) => g.alnum(36)),
  token('github-fine-grained-token', 'github_pat_', (g) => `${g.alnum(22)}_${g.alnum(59)}`),
  token('gitlab-token', 'glpat-', (g) => g.dashed(20)),
  token('npm-token', 'npm_', (g) => g.alnum(36)),
  token('pypi-token', 'pypi-AgEIcHlwaS5vcmc', (g) => g.dashed(70)),
  token('docker-token', 'dckr_pat_', (g) => g.dashed(27)),
  token('slack-bot-token', 'xoxb-', (g) => `${g.digits(12)}-${g.digits(13)}-${g.alnum(24)}`),
  token('slack-app-token', 'xapp-1-', (g) => `A0${g.upperDigits(9)}-${g.digits(13)}-${g.hex(64)}`),
  token(
    'slack-webhook-url',
    'https://hooks.slack.com/services/',
    (g) => `T${g.upperDigits(8)}/B${g.upperDigits(8)}/${g.alnum(24)}`,
  ),
  token('discord-webhook-url', 'https://discord.com/api/webhooks/', (g) => `${g.digits(18)}/${g.dashed(68)}`),
  token('telegram-bot-token', '', (g) => `${g.digits(9)}:AA${g.dashed(33)}`),
  token('stripe-live-key', 'sk_live_', (g) => g.alnum(99)),
  token('stripe-restricted-key', 'rk_live_', (g) => g.alnum(24)),
  token('stripe-webhook-secret', 'whsec_', (g) => g.alnum(32)),
  token('sendgrid-key', 'SG.', (g) => `${g.dashed(22)}.${g.dashed(43)}`),
  token('twilio-api-key', 'SK', (g) => g.hex(32)),
  inContext(
    'mailgun-key',
    'curl -s --user api:$ https://api.mailgun.net/v3/domains',
    (g) => `key-${g.hex(32)}`,
  ),
  token('mailchimp-key', '', (g) => `${g.hex(32)}-us12`),
  token('shopify-token', 'shpat_', (g) => g.hex(32)),
  token('square-token', 'sq0atp-', (g) => g.dashed(22)),
  token('linear-key', 'lin_api_', (g) => g.alnum(40)),
  token('notion-token', 'ntn_', (g) => `${g.digits(11)}${g.alnum(35)}`),
  token('figma-token', 'figd_', (g) => g.dashed(48)),
  token('vault-service-token', 'hvs.', (g) => g.dashed(100)),
  token('vault-batch-token', 'hvb.', (g) => g.dashed(150)),
  token('vercel-token', 'vcp_', (g) => g.alnum(24)),
  token('cloudflare-token', 'cfut_', (g) => `${g.alnum(40)}${g.hex(8)}`),
  token('tailscale-key', 'tskey-auth-', (g) => `${g.alnum(12)}-${g.alnum(30)}`),
  (g) => {
    let payload = JSON.stringify({
      email: `${g.lowerDigits(12)}@1passwordserviceaccounts.lcl`,
      secretKey: g.upperDigits(30),
      srpX: g.hex(64),
    })
    // Sized so that its base64 ends in "fQ==", the encoded closing brace.
    while (payload.length % 3 !== 1) payload = `${payload.slice(0, -1)} }`
    const secret = `ops_${Buffer.from(payload).toString('base64')}`
    return { id: 'onepassword-service-token', secret, text: secret, prefix: 4 }
  },
  token('atlassian-token', 'ATATT3', (g) => g.dashed(180)),
  token('postman-key', 'PMAK-', (g) => `${g.hex(24)}-${g.hex(34)}`),
  token('newrelic-key', 'NRAK-', (g) => g.upperDigits(27)),
  token('sentry-token', 'sntrys_', (g) => g.alnum(60)),
  token('grafana-token', 'glsa_', (g) => `${g.alnum(32)}_${g.hex(8)}`),
  token('age-secret-key', 'AGE-SECRET-KEY-1', (g) => g.bech32(58)),
  token('azure-entra-client-secret', '', (g) => `${g.alnum(3)}${g.digits(1)}Q~${g.dashed(34)}`),
  token('discord-bot-token', '', (g) => {
    const id = Buffer.from(`1${g.digits(18)}`)
      .toString('base64')
      .replace(/=+$/, '')
    return `${id}.${g.dashed(6)}.${g.dashed(38)}`
  }),
  token('mapbox-secret-token', 'sk.eyJ', (g) => `${g.dashed(60)}.${g.dashed(22)}`),
  token('planetscale-token', 'pscale_tkn_', (g) => g.dashed(43)),
  token('flyio-token', 'fo1_', (g) => g.dashed(43)),
  token('typeform-token', 'tfp_', (g) => g.dashed(59)),
  token('dynatrace-token', 'dt0c01.', (g) => `${g.upperDigits(24)}.${g.upperDigits(64)}`),
  token('airtable-token', 'pat', (g) => `${g.alnum(14)}.${g.hex(64)}`),
  token('sourcegraph-token', 'sgp_', (g) => `${g.hex(16)}_${g.hex(40)}`),
  token('netlify-token', 'nfp_', (g) => g.alnum(36)),
  token('render-key', 'rnd_', (g) => g.alnum(32)),
  token('resend-key', 're_', (g) => `${g.alnum(8)}_${g.alnum(24)}`),
  token('brevo-key', 'xkeysib-', (g) => `${g.hex(64)}-${g.alnum(16)}`),
  token('langfuse-key', 'sk-lf-', (g) => `${g.hex(8)}-${g.hex(4)}-${g.hex(4)}-${g.hex(4)}-${g.hex(12)}`),
  token('elevenlabs-key', 'sk_', (g) => g.hex(48)),
  token('dropbox-token', 'sl.', (g) => g.dashed(140)),
  token('shippo-token', 'shippo_live_', (g) => g.hex(40)),
  token('easypost-key', 'EZAK', (g) => g.alnum(54)),
  (g) => {
    const secret = `eyJ${g.dashed(36)}.eyJ${g.dashed(60)}.${g.dashed(43)}`
    return { id: 'jwt', secret, text: secret, prefix: 3 }
  },
  inContext('bearer-token', 'Authorization: Bearer $', (g) => `${g.alnum(24)}.${g.alnum(16)}`),
  inContext('basic-credentials', 'Authorization: Basic $', (g) =>
    Buffer.from(`svc-user:${g.alnum(18)}`).toString('base64'),
  ),
  inContext('postgres-url-password', 'postgres://app:$@db.internal:5432/app', (g) => g.alnum(20)),
  inContext('mongodb-url-password', 'mongodb+srv://admin:$@cluster0.example.net/db', (g) => g.alnum(24)),
  inContext('mysql-url-password', 'mysql://app_user:$@mysql.internal:3306/shop', (g) => g.alnum(20)),
  inContext('https-url-password', 'https://deploy:$@registry.example.com/packages', (g) => g.alnum(20)),
  inContext('redis-url-password', 'redis://:$@cache.internal:6379/0', (g) => g.alnum(32)),
  inContext('password-assignment', 'password=$', (g) => `${g.lowerDigits(10)}7q`),
  inContext('client-secret-in-json-text', '{"client_id":"web","client_secret":"$"}', (g) => g.alnum(40)),
  ...['RSA PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'EC PRIVATE KEY', 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY'].map(
    (label) => (g: Gen) => {
      const secret = pem(label, g)
      return {
        id: `pem-${label.toLowerCase().replace(/ /g, '-')}`,
        secret,
        text: secret,
        prefix: PEM_PREFIX(label),
      }
    },
  ),
  (g) => {
    const body = Array.from({ length: 5 }, () => g.base64(64)).join('\n')
    const secret = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${body}\n=${g.base64(4)}\n-----END PGP PRIVATE KEY BLOCK-----`
    return { id: 'pgp-private-key', secret, text: secret, prefix: 38 }
  },
  (g) => {
    const key = pem('PRIVATE KEY', g)
    const text = JSON.stringify({
      type: 'service_account',
      project_id: 'acme-prod',
      private_key_id: g.hex(40),
      private_key: key,
      client_email: 'agent@acme-prod.iam.gserviceaccount.com',
    })
    // The key as it stands in the JSON text, with its newlines escaped.
    const secret = JSON.stringify(key).slice(1, -1)
    return { id: 'gcp-service-account-json', secret, text, prefix: '-----BEGIN PRIVATE KEY-----\\n'.length }
  },
]

/** Every secret shape, each generated from its own seed. */
export const SECRET_CORPUS: readonly SecretSample[] = SHAPES.map((shape, i) => shape(generator(1000 + i)))

/**
 * The pieces of a secret that must never be written: the secret whole, and every 16-character
 * fragment that is not entirely its public prefix.
 */
export function fragmentsOf(sample: SecretSample, length = 16): string[] {
  const { secret, prefix } = sample
  if (secret.length <= length) return [secret]
  const out = new Set<string>([secret])
  for (let at = Math.max(0, prefix - length + 1); at + length <= secret.length; at++) {
    const piece = secret.slice(at, at + length)
    if (!piece.includes('\n') && !piece.includes('\\n')) out.add(piece)
  }
  return [...out]
}

/** The 16-character fragments of `sample` found in `text`. */
export function leakedFragments(text: string, sample: SecretSample): string[] {
  return fragmentsOf(sample).filter((f) => text.includes(f))
}

/**
 * Pieces of the secret longer than 4 characters that a message shows, outside its public prefix:
 * a message may show a 4-character preview, never more.
 */
export function shownBeyondPreview(text: string, sample: SecretSample): string[] {
  const { secret, prefix } = sample
  const shown: string[] = []
  for (let at = Math.max(0, prefix - 4); at + 5 <= secret.length; at++) {
    const piece = secret.slice(at, at + 5)
    if (/\n|\\n/.test(piece) || /^[-=]+$/.test(piece)) continue
    if (text.includes(piece)) shown.push(piece)
  }
  return shown
}

/** Text that has the look of a secret and is not one: recording it must change nothing. */
export const LOOK_ALIKES: readonly { id: string; text: string }[] = (() => {
  const g = generator(7)
  return [
    { id: 'commit sha', text: `Fixed in commit ${g.hex(40)}.` },
    { id: 'short sha', text: `git checkout ${g.hex(7)}` },
    { id: 'uuid', text: `order ${g.hex(8)}-${g.hex(4)}-4${g.hex(3)}-a${g.hex(3)}-${g.hex(12)}` },
    { id: 'sha256 digest', text: `sha256:${g.hex(64)}` },
    {
      id: 'documentation bearer',
      text: 'curl -H "Authorization: Bearer YOUR_API_KEY_HERE" https://api.example.com',
    },
    { id: 'documentation key', text: 'export OPENAI_API_KEY=sk-...' },
    { id: 'xxx key', text: 'OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' },
    { id: 'angle placeholder', text: 'api_key: <your-api-key>' },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style placeholder, as documentation writes it
    { id: 'template placeholder', text: 'token: ${GITHUB_TOKEN_VALUE}' },
    { id: 'env reference', text: 'apiKey: process.env.OPENAI_API_KEY' },
    { id: 'config reference', text: 'api_key = settings.openaiApiKey' },
    {
      id: 'prose about prefixes',
      text: 'OpenAI keys start with sk-proj- and Anthropic keys with sk-ant-api03-.',
    },
    { id: 'sklearn', text: 'Use an sk-learn-compatible-estimator-with-pipelines here.' },
    { id: 'max tokens', text: 'max_tokens=4096&temperature=0.2' },
    { id: 'token count', text: '{"prompt_tokens": 1234, "total_tokens": 5678}' },
    { id: 'basic prose', text: 'Basic usage: call the API with a prompt.' },
    { id: 'typescript type', text: 'interface Login { password: string; token?: string }' },
    {
      id: 'url without password',
      text: 'postgres://db.internal:5432/app and https://example.com:8443/path@v2',
    },
    {
      id: 'pem public key',
      text: '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
    },
    { id: 'akia in prose', text: 'AWS access key ids begin with AKIA.' },
    { id: 'pagination token', text: 'page_token=CiAKGjBpNDd2Nmp2Zml2cXRyaWw' },
    { id: 'image data', text: Buffer.from(g.alnum(300)).toString('base64') },
    { id: 'model names', text: 'gpt-4o-mini, claude-sonnet-4-5, gemini-2.5-pro, o3-mini-high' },
  ]
})()
