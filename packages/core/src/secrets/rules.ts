import { credentialName, isCredentialValue, isStandIn, type NameStrength } from './names.js'
import { isSecretParamName } from './params.js'
import { isPlaceholder, looksRandom } from './placeholders.js'

/** A pattern for a secret-shaped string. */
export interface SecretRule {
  id: string
  label: string
  /** A global RegExp. With `group`, only that capture group is the secret (the rest is context). */
  pattern: RegExp
  group?: number
  /**
   * Text that every match contains (a string, found case-sensitively, or a RegExp): the rule
   * runs only on texts that have it. For patterns that start with a character class, which the
   * regular expression engine would otherwise try at every position of a long text.
   */
  hint?: string | RegExp
  /** Rejects a match that has the shape but is not a secret (a placeholder, an English word). */
  accept?: (secret: string, match: string) => boolean
  /**
   * The secret is known by the name written before it (`password=`, `Cookie:`), not by its shape.
   * A stream's single events are not read with these rules: an event can cut a name in two
   * (`nextToken` as `…t` and `Token":"…`); the text the stream reassembles to is.
   */
  byName?: true
}

/** Texts that may hold a credential by name: the rule below runs only on them. */
const CREDENTIAL_WORD = /pass|secret|key|token|auth|sess|cookie|cred|jwt|pwd|sid/i
/** A host name (`jwt.io`, `auth.example.com`): what follows it is an address or a page, not a value. */
const HOST_NAME = /\.(?:com|org|net|io|dev|ai|app|co|cloud|sh|me|info|us|uk|de|fr)$/i
/** The name in a `name: value` match, without its quotes. */
const NAME_BEFORE_VALUE = /^((?:--?)?[A-Za-z_][A-Za-z0-9_.-]*)/

/**
 * Whether `value` is a credential by the name that holds it. In a URL a parameter's name is read
 * as a query's (any credential word, a signature included); a cookie with no credential word in
 * its name still counts when its value is machine-made (a session id).
 */
function isNamedCredential(name: string, value: string, where: 'setting' | 'cookie' | 'url'): boolean {
  // `jwt.io: eyJ…` names a site, not a setting.
  if (where === 'setting' && HOST_NAME.test(name)) return false
  // `Credentials = Credentials`, `token: token`: a name written twice, not a value.
  if (value.toLowerCase() === name.replace(/^[-$]+/, '').toLowerCase()) return false
  let strength: NameStrength | undefined = credentialName(name)
  if (where === 'url') {
    if (!isSecretParamName(name)) return false
    strength ??= 'weak'
  } else if (strength === 'signature') return false
  if (where === 'cookie') strength ??= 'weak'
  return strength !== undefined && isCredentialValue(strength, value)
}
/**
 * The name a markup value goes by: the element's own (its local part, `ns:Password` is
 * `Password`) when it names a credential, else its `key`, `name`, `id` or `type` attribute.
 */
function markupName(match: string, element: boolean): string {
  if (element) {
    const tag = /^<([\w.:-]+)/.exec(match)?.[1] ?? ''
    const local = tag.slice(tag.lastIndexOf(':') + 1)
    if (credentialName(local) !== undefined) return local
  }
  const open = match.slice(0, match.indexOf('>') === -1 ? match.length : match.indexOf('>'))
  return /\s(?:key|name|id|type)[ \t]*=[ \t]*["']([^"'<>]{1,80})["']/i.exec(open)?.[1] ?? ''
}
const random = (min: number) => (s: string) => !isPlaceholder(s) && looksRandom(s, min)

/** `user:password` once decoded, as in an HTTP Basic credential. */
function isBasicCredential(encoded: string): boolean {
  const decoded = Buffer.from(encoded, 'base64').toString('latin1')
  return (
    /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded) && !isPlaceholder(decoded.slice(decoded.indexOf(':') + 1))
  )
}

/**
 * A rule whose prefix is distinctive (`ghp_`, `sk-ant-`, `AIza`) finds its key after any
 * character, a letter included (`tokenghp_…`, a key pasted onto a word), and takes the key's
 * documented length even when more characters follow. A rule with a short or common prefix
 * (`sk-`, `SK`, `key-`, `AKIA`) needs a character that is not a letter or digit on both sides,
 * since `disk-…` or a longer upper-case word would otherwise match.
 *
 * Secret shapes that are redacted from inputs and refused in anything written. Vendor rules
 * follow each issuer's documented prefix and length; context rules (`group`) take the value next
 * to a keyword, for secrets with no shape of their own. `rules.test.ts` keeps this table in step
 * with secretlint's recommended preset.
 */
export const SECRET_RULES: readonly SecretRule[] = [
  // Private key blocks are one finding from BEGIN to END (or to the end of the text, when cut).
  {
    id: 'private-key',
    hint: 'PRIVATE KEY',
    label: 'a private key',
    pattern:
      /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$(?![\s\S]))/g,
  },
  {
    id: 'putty-key',
    hint: 'PuTTY-User-Key-File-',
    label: 'a PuTTY private key',
    pattern: /PuTTY-User-Key-File-\d:[\s\S]*?(?:Private-MAC: ?[0-9a-f]+|$(?![\s\S]))/g,
  },
  { id: 'age-key', label: 'an age secret key', pattern: /AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}/g },
  // LLM providers
  {
    id: 'anthropic-key',
    label: 'an Anthropic API key',
    pattern: /sk-ant-[A-Za-z0-9]{2,12}-[A-Za-z0-9_-]{20,}/g,
  },
  { id: 'openrouter-key', label: 'an OpenRouter API key', pattern: /sk-or-v1-[0-9a-f]{64}/g },
  {
    id: 'openai-key',
    label: 'an OpenAI-style API key',
    // `sk-proj-` and its kin are distinctive after any character; a bare `sk-` is not (`disk-…`).
    pattern: /(?:sk-(?:proj|svcacct|admin)-|(?<![A-Za-z0-9])sk-(?:None-)?)[A-Za-z0-9_-]{20,}/g,
    accept: random(16),
  },
  {
    id: 'openai-session',
    label: 'an OpenAI session key',
    pattern: /(?<![A-Za-z0-9])sess-[A-Za-z0-9]{40}(?![A-Za-z0-9])/g,
    accept: random(16),
  },
  { id: 'groq-key', label: 'a Groq API key', pattern: /gsk_[A-Za-z0-9]{48,}/g },
  { id: 'xai-key', label: 'an xAI API key', pattern: /xai-[A-Za-z0-9]{70,}/g },
  {
    id: 'huggingface-token',
    label: 'a Hugging Face token',
    pattern: /(?<![A-Za-z0-9])(?:hf|api_org)_[A-Za-z0-9]{30,}(?![A-Za-z0-9])/g,
  },
  { id: 'perplexity-key', label: 'a Perplexity API key', pattern: /pplx-[A-Za-z0-9]{40,}/g },
  {
    id: 'replicate-token',
    label: 'a Replicate token',
    pattern: /(?<![A-Za-z0-9])r8_[A-Za-z0-9]{37}(?![A-Za-z0-9])/g,
    accept: random(8),
  },
  {
    id: 'fireworks-key',
    label: 'a Fireworks API key',
    pattern: /(?<![A-Za-z0-9])fw_[A-Za-z0-9]{20,}/g,
    accept: random(16),
  },
  { id: 'together-key', label: 'a Together API key', pattern: /tgp_v1_[A-Za-z0-9_-]{40,}/g },
  { id: 'nvidia-key', label: 'an NVIDIA API key', pattern: /nvapi-[A-Za-z0-9_-]{60,}/g },
  {
    id: 'cerebras-key',
    label: 'a Cerebras API key',
    pattern: /(?<![A-Za-z0-9])csk-[a-z0-9]{40,}/g,
    accept: random(16),
  },
  {
    id: 'tavily-key',
    label: 'a Tavily API key',
    pattern: /(?<![A-Za-z0-9])tvly-(?:dev-|prod-)?[A-Za-z0-9]{24,}/g,
    accept: random(16),
  },
  { id: 'pinecone-key', label: 'a Pinecone API key', pattern: /pcsk_[A-Za-z0-9_]{40,}/g },
  {
    id: 'langsmith-key',
    label: 'a LangSmith API key',
    pattern: /lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}/g,
  },
  // Cloud providers
  { id: 'google-key', label: 'a Google API key', pattern: /AIza[0-9A-Za-z_-]{35}/g },
  { id: 'google-oauth-token', label: 'a Google OAuth access token', pattern: /ya29\.[0-9A-Za-z_-]{20,}/g },
  {
    id: 'google-refresh-token',
    label: 'a Google OAuth refresh token',
    pattern: /(?<![A-Za-z0-9])1\/\/0[0-9A-Za-z_-]{40,}/g,
  },
  {
    id: 'google-client-secret',
    label: 'a Google OAuth client secret',
    pattern: /GOCSPX-[0-9A-Za-z_-]{28}/g,
  },
  {
    id: 'aws-access-key',
    label: 'an AWS access key id',
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9])/g,
  },
  {
    id: 'aws-secret-key',
    hint: /secret|AKIA|ASIA/i,
    label: 'an AWS secret access key',
    pattern:
      /(?:secret_?access_?key|secretaccesskey|aws_?secret(?:_?key)?|(?:AKIA|ASIA)[0-9A-Z]{16})["'\s]{0,3}[\s:=,;|>]{1,3}["'\s]{0,3}([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    group: 1,
    accept: random(8),
  },
  {
    id: 'aws-session-token',
    hint: /token/i,
    label: 'an AWS session token',
    pattern: /(?:session_?token|security_?token)["'\s]{0,3}[:=]["'\s]{0,3}([A-Za-z0-9/+=]{100,})/gi,
    group: 1,
  },
  {
    id: 'azure-key',
    hint: 'Key=',
    label: 'an Azure storage or service bus key',
    pattern: /(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,}={0,2})/g,
    group: 1,
  },
  { id: 'digitalocean-token', label: 'a DigitalOcean token', pattern: /do[opr]_v1_[0-9a-f]{64}/g },
  {
    id: 'databricks-token',
    label: 'a Databricks token',
    pattern: /(?<![A-Za-z0-9])dapi[0-9a-f]{32}(?:-\d)?(?![A-Za-z0-9])/g,
    accept: random(8),
  },
  { id: 'heroku-key', label: 'a Heroku API key', pattern: /HRKU-[A-Za-z0-9_-]{60}/g },
  {
    id: 'supabase-token',
    label: 'a Supabase token',
    pattern: /(?:sbp_[0-9a-f]{40}|sb_secret_[A-Za-z0-9_-]{30,})/g,
  },
  {
    id: 'terraform-token',
    hint: '.atlasv1.',
    label: 'a Terraform Cloud token',
    pattern: /[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}/g,
  },
  {
    id: 'pulumi-token',
    label: 'a Pulumi token',
    pattern: /(?<![A-Za-z0-9])pul-[0-9a-f]{40}(?![A-Za-z0-9])/g,
  },
  {
    id: 'vault-token',
    label: 'a HashiCorp Vault token',
    pattern: /hv[sbr]\.[A-Za-z0-9_-]{90,300}/g,
  },
  {
    id: 'vercel-token',
    label: 'a Vercel token',
    pattern: /(?<![A-Za-z0-9])vc[pikar]_[A-Za-z0-9]{20,60}(?![A-Za-z0-9])/g,
    accept: random(8),
  },
  {
    id: 'cloudflare-token',
    label: 'a Cloudflare API token',
    pattern: /(?<![A-Za-z0-9])(?:cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}(?![A-Za-z0-9])/g,
  },
  {
    id: 'tailscale-key',
    label: 'a Tailscale key',
    pattern: /tskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}/g,
  },
  {
    id: 'onepassword-token',
    label: 'a 1Password service account token',
    pattern: /ops_ey[A-Za-z0-9+/=]{100,}/g,
  },
  {
    id: 'doppler-token',
    label: 'a Doppler token',
    pattern: /dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}/g,
  },
  // Code hosting and package registries
  {
    id: 'github-token',
    label: 'a GitHub token',
    pattern: /(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  {
    id: 'gitlab-token',
    label: 'a GitLab token',
    pattern: /gl(?:pat|dt|rt|ptt|cbt|oas|soat|ffct|imt|agent)-[0-9A-Za-z_-]{20,}/g,
  },
  { id: 'npm-token', label: 'an npm token', pattern: /npm_[A-Za-z0-9]{36}/g },
  { id: 'pypi-token', label: 'a PyPI token', pattern: /pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g },
  { id: 'docker-token', label: 'a Docker Hub token', pattern: /dckr_pat_[A-Za-z0-9_-]{27,}/g },
  // SaaS
  { id: 'slack-token', label: 'a Slack token', pattern: /xox[abposre]-[A-Za-z0-9-]{10,}/g },
  { id: 'slack-app-token', label: 'a Slack app token', pattern: /xapp-\d-[A-Za-z0-9-]{10,}/g },
  {
    id: 'slack-webhook',
    label: 'a Slack webhook URL',
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/g,
  },
  {
    id: 'discord-webhook',
    label: 'a Discord webhook URL',
    pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{60,}/g,
  },
  {
    id: 'telegram-token',
    hint: ':AA',
    label: 'a Telegram bot token',
    // Often in its URL path, right after `bot`: only a digit before it would make it another number.
    pattern: /(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}/g,
  },
  { id: 'stripe-key', label: 'a Stripe secret key', pattern: /(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}/g },
  { id: 'stripe-webhook-secret', label: 'a Stripe webhook secret', pattern: /whsec_[A-Za-z0-9+/]{24,}/g },
  {
    id: 'sendgrid-key',
    label: 'a SendGrid API key',
    pattern: /SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g,
  },
  {
    id: 'twilio-key',
    label: 'a Twilio API key',
    pattern: /(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/g,
    accept: random(8),
  },
  // `key-` and 32 hex digits is also how many stores name their keys (Redis, caches): only next
  // to Mailgun (its name, or the `api:` user of its Basic auth) is it Mailgun's.
  {
    id: 'mailgun-key',
    hint: /mailgun|api:key-/i,
    label: 'a Mailgun API key',
    pattern: /(?<![A-Za-z0-9])key-[0-9a-f]{32}(?![A-Za-z0-9])/g,
    accept: random(8),
  },
  {
    id: 'mailchimp-key',
    hint: '-us',
    label: 'a Mailchimp API key',
    pattern: /(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])/g,
  },
  { id: 'shopify-token', label: 'a Shopify token', pattern: /shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}/g },
  { id: 'square-token', label: 'a Square token', pattern: /sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}/g },
  { id: 'figma-token', label: 'a Figma token', pattern: /figd_[A-Za-z0-9_-]{40,200}/g },
  { id: 'linear-key', label: 'a Linear API key', pattern: /lin_api_[A-Za-z0-9]{40}/g },
  {
    id: 'notion-token',
    label: 'a Notion token',
    pattern: /(?:(?<![A-Za-z0-9])secret_[A-Za-z0-9]{43}(?![A-Za-z0-9])|ntn_[A-Za-z0-9]{40,})/g,
  },
  { id: 'atlassian-token', label: 'an Atlassian API token', pattern: /ATATT3[A-Za-z0-9_=-]{150,}/g },
  { id: 'postman-key', label: 'a Postman API key', pattern: /PMAK-[0-9a-f]{24}-[0-9a-f]{34}/g },
  { id: 'newrelic-key', label: 'a New Relic key', pattern: /NR(?:AK|II|JS)-[A-Za-z0-9]{19,32}/g },
  { id: 'sentry-token', label: 'a Sentry token', pattern: /sntry[su]_[A-Za-z0-9+/=_-]{30,}/g },
  {
    id: 'grafana-token',
    label: 'a Grafana token',
    pattern: /(?:glc_[A-Za-z0-9+/=]{32,}|glsa_[A-Za-z0-9]{32}_[0-9a-fA-F]{8})/g,
  },
  // Shapes found by few scanners: each has its issuer's documented prefix or structure.
  {
    id: 'azure-entra-secret',
    hint: 'Q~',
    label: 'an Azure Entra ID client secret',
    // Three characters, a digit, `Q~`, then 31 to 34 more (a Microsoft identity platform secret).
    pattern: /[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9~-])/g,
    accept: random(6),
  },
  {
    id: 'discord-bot-token',
    hint: /[MNO][A-Za-z0-9_-]{23,27}\./,
    label: 'a Discord bot token',
    // The base64 of the bot's numeric id, a dot, a timestamp, a dot, an HMAC.
    pattern: /[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9-])/g,
    accept: (secret) =>
      /^\d{17,20}$/.test(Buffer.from(secret.slice(0, secret.indexOf('.')), 'base64').toString('latin1')),
  },
  {
    id: 'mapbox-secret-token',
    label: 'a Mapbox secret token',
    pattern: /sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/g,
  },
  {
    id: 'planetscale-token',
    label: 'a PlanetScale token or password',
    pattern: /pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}/g,
  },
  {
    id: 'flyio-token',
    label: 'a Fly.io token',
    pattern: /(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/=_-]{100,})/g,
  },
  { id: 'typeform-token', label: 'a Typeform token', pattern: /tfp_[A-Za-z0-9_.=-]{59,}/g },
  { id: 'dynatrace-token', label: 'a Dynatrace token', pattern: /dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}/g },
  {
    id: 'airtable-token',
    label: 'an Airtable personal access token',
    pattern: /pat[A-Za-z0-9]{14}\.[0-9a-f]{64}/g,
  },
  { id: 'sourcegraph-token', label: 'a Sourcegraph token', pattern: /sgp_(?:[0-9a-f]{16}_)?[0-9a-f]{40}/g },
  {
    id: 'netlify-token',
    label: 'a Netlify token',
    pattern: /nf[pc]_[A-Za-z0-9]{36,40}/g,
    accept: random(16),
  },
  {
    id: 'render-key',
    label: 'a Render API key',
    pattern: /rnd_[A-Za-z0-9]{32}/g,
    accept: random(16),
  },
  {
    id: 'resend-key',
    label: 'a Resend API key',
    pattern: /(?<![A-Za-z0-9])re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}(?![A-Za-z0-9])/g,
    accept: random(16),
  },
  {
    id: 'brevo-key',
    label: 'a Brevo (Sendinblue) API key',
    pattern: /xkeysib-[0-9a-f]{64}-[A-Za-z0-9]{16}/g,
  },
  {
    id: 'langfuse-key',
    label: 'a Langfuse secret key',
    pattern: /sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
  },
  {
    id: 'elevenlabs-key',
    label: 'an ElevenLabs API key',
    pattern: /(?<![A-Za-z0-9])sk_[0-9a-f]{48}(?![A-Za-z0-9])/g,
  },
  {
    id: 'dropbox-token',
    label: 'a Dropbox access token',
    pattern: /(?<![A-Za-z0-9])sl\.(?:u\.)?[A-Za-z0-9_-]{130,}/g,
  },
  { id: 'shippo-token', label: 'a Shippo API token', pattern: /shippo_live_[0-9a-f]{40}/g },
  { id: 'easypost-key', label: 'an EasyPost API key', pattern: /EZ[AT]K[0-9a-zA-Z]{54}/g },
  // Generic shapes
  {
    id: 'jwt',
    label: 'a JSON Web Token',
    pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    id: 'bearer-token',
    byName: true,
    hint: /bearer/i,
    label: 'a bearer token',
    pattern: /\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)/gi,
    group: 1,
    accept: random(8),
  },
  {
    id: 'basic-auth',
    byName: true,
    hint: 'Basic',
    label: 'an HTTP Basic credential',
    pattern: /\bBasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g,
    group: 1,
    accept: isBasicCredential,
  },
  {
    id: 'url-password',
    hint: '://',
    label: 'a password in a URL',
    pattern: /(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/?#@"'<>]{0,128}:([^\s:@/?#"'<>]{1,256})@/g,
    group: 1,
    accept: (s) => !isPlaceholder(s) && !isStandIn(s),
  },
  // Credentials by name (see names.ts): a setting, a cookie, a header or a URL parameter whose
  // name says credential, holding a value that could be one.
  // A name inside a colon-separated identifier (`…:123456789012:secret:prod-db`, an ARN) is a
  // part of the identifier, not a setting; `/:_authToken=` in an .npmrc is one.
  {
    id: 'secret-assignment',
    byName: true,
    hint: CREDENTIAL_WORD,
    label: 'a value assigned to a secret-named setting',
    pattern:
      /(?<![A-Za-z0-9_.-]|[A-Za-z0-9]:)((?:--?)?[A-Za-z0-9_.-]{0,40}?(?:pass|secret|key|token|auth|sess|cookie|cred|jwt|pwd|sid)[A-Za-z0-9_.-]{0,40})["']?[ \t]{0,3}[:=][ \t]{0,3}["']?((?:[^\s"'`,;&<>{}()[\]\\]|\\u[0-9a-fA-F]{4}|\\\/){6,})/gi,
    group: 2,
    accept: (value, match) => isNamedCredential(NAME_BEFORE_VALUE.exec(match)?.[1] ?? '', value, 'setting'),
  },
  // Markup: an element or an attribute pair named for a credential (`<password>…</password>`,
  // a Maven settings.xml; `<add key="ApiKey" value="…"/>`, a .NET config; `<entry key="db.password">`).
  {
    id: 'markup-element',
    byName: true,
    hint: CREDENTIAL_WORD,
    label: 'a credential in a markup element named for one',
    pattern:
      /<([A-Za-z_][\w.:-]{0,60})((?:\s[^<>]*)?)>[ \t\r\n]*(?:<!\[CDATA\[)?([^<>\s]{6,4096}?)(?:\]\]>)?[ \t\r\n]*<\/\1[ \t]*>/g,
    group: 3,
    accept: (value, match) => isNamedCredential(markupName(match, true), value, 'setting'),
  },
  {
    id: 'markup-attribute',
    byName: true,
    hint: CREDENTIAL_WORD,
    label: 'a credential in a markup attribute pair named for one',
    pattern:
      /<[A-Za-z_][\w.:-]*(?=[^<>]*?\s(?:key|name|id|type)[ \t]*=[ \t]*["'][^"'<>]{1,80}["'])[^<>]*?\svalue[ \t]*=[ \t]*(["'])([^"'<>]{6,4096})\1[^<>]*>?/gi,
    group: 2,
    accept: (value, match) => isNamedCredential(markupName(match, false), value, 'setting'),
  },
  {
    id: 'netrc-password',
    byName: true,
    hint: 'password',
    label: 'a password in a .netrc entry',
    pattern:
      /(?:^|\s)(?:machine[ \t]+\S+|default)(?:\s+(?:login|account|port)[ \t]+\S+)*\s+password[ \t]+(\S+)/g,
    group: 1,
    accept: (value) => isCredentialValue('strong', value),
  },
  {
    id: 'cookie',
    byName: true,
    hint: /cookie:/i,
    label: 'a cookie value',
    // Every pair of a `Cookie:` header; only the first of a `Set-Cookie:` (the rest are attributes).
    // The pairs before a pair are read as `…;` runs, which split a line one way only: a run that
    // could also end in the spaces after its `;` made a `Set-Cookie:` line of 30 attributes take
    // minutes to fail the `Cookie:` branch.
    pattern:
      /(?<=(?<!Set-)\bCookie:[ \t]*(?:[^\r\n;]*;)*[ \t]*|\bSet-Cookie:[ \t]*)[^\s=;]{1,64}=([^;\s]{6,})/gi,
    group: 1,
    accept: (value, match) => isNamedCredential(match.slice(0, match.indexOf('=')), value, 'cookie'),
  },
  {
    id: 'authorization',
    byName: true,
    hint: /authorization:/i,
    label: 'an Authorization header value',
    pattern:
      /\b(?:Proxy-)?Authorization:[ \t]*(?!Basic\b|Bearer\b)(?:[A-Za-z][\w-]{0,20}[ \t]+)?([^\s"',;]{16,})/gi,
    group: 1,
    accept: (value) => isCredentialValue('weak', value),
  },
  {
    id: 'url-parameter',
    byName: true,
    hint: '://',
    label: 'a credential parameter of a URL',
    pattern: /(?<=[a-z][a-z0-9+.-]{1,20}:\/\/[^\s"'<>`]*[?&])([A-Za-z0-9_.~-]{1,64})=([^&#\s"'<>`]{6,})/gi,
    group: 2,
    accept: (value, match) => isNamedCredential(match.slice(0, match.indexOf('=')), value, 'url'),
  },
]
