import { isCodeReference, isPlaceholder, looksRandom } from './placeholders.js'

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
}

const PAGINATION = /(?:page|next|continuation|cursor|sync)[_-]?token/i
const random = (min: number) => (s: string) => !isPlaceholder(s) && looksRandom(s, min)
const notPlaceholder = (s: string) => !isPlaceholder(s)

/** `user:password` once decoded, as in an HTTP Basic credential. */
function isBasicCredential(encoded: string): boolean {
  const decoded = Buffer.from(encoded, 'base64').toString('latin1')
  return (
    /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded) && !isPlaceholder(decoded.slice(decoded.indexOf(':') + 1))
  )
}

/**
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
    pattern: /\bsk-ant-[A-Za-z0-9]{2,12}-[A-Za-z0-9_-]{20,}/g,
  },
  { id: 'openrouter-key', label: 'an OpenRouter API key', pattern: /\bsk-or-v1-[0-9a-f]{64}\b/g },
  {
    id: 'openai-key',
    label: 'an OpenAI-style API key',
    pattern: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g,
    accept: random(16),
  },
  {
    id: 'openai-session',
    label: 'an OpenAI session key',
    pattern: /\bsess-[A-Za-z0-9]{40}\b/g,
    accept: random(16),
  },
  { id: 'groq-key', label: 'a Groq API key', pattern: /\bgsk_[A-Za-z0-9]{48,}/g },
  { id: 'xai-key', label: 'an xAI API key', pattern: /\bxai-[A-Za-z0-9]{70,}/g },
  { id: 'huggingface-token', label: 'a Hugging Face token', pattern: /\b(?:hf|api_org)_[A-Za-z0-9]{30,}\b/g },
  { id: 'perplexity-key', label: 'a Perplexity API key', pattern: /\bpplx-[A-Za-z0-9]{40,}/g },
  {
    id: 'replicate-token',
    label: 'a Replicate token',
    pattern: /\br8_[A-Za-z0-9]{37}\b/g,
    accept: random(8),
  },
  {
    id: 'fireworks-key',
    label: 'a Fireworks API key',
    pattern: /\bfw_[A-Za-z0-9]{20,}/g,
    accept: random(16),
  },
  { id: 'together-key', label: 'a Together API key', pattern: /\btgp_v1_[A-Za-z0-9_-]{40,}/g },
  { id: 'nvidia-key', label: 'an NVIDIA API key', pattern: /\bnvapi-[A-Za-z0-9_-]{60,}/g },
  { id: 'cerebras-key', label: 'a Cerebras API key', pattern: /\bcsk-[a-z0-9]{40,}/g, accept: random(16) },
  {
    id: 'tavily-key',
    label: 'a Tavily API key',
    pattern: /\btvly-(?:dev-|prod-)?[A-Za-z0-9]{24,}/g,
    accept: random(16),
  },
  { id: 'pinecone-key', label: 'a Pinecone API key', pattern: /\bpcsk_[A-Za-z0-9_]{40,}/g },
  {
    id: 'langsmith-key',
    label: 'a LangSmith API key',
    pattern: /\blsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}\b/g,
  },
  // Cloud providers
  { id: 'google-key', label: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { id: 'google-oauth-token', label: 'a Google OAuth access token', pattern: /\bya29\.[0-9A-Za-z_-]{20,}/g },
  {
    id: 'google-refresh-token',
    label: 'a Google OAuth refresh token',
    pattern: /\b1\/\/0[0-9A-Za-z_-]{40,}/g,
  },
  {
    id: 'google-client-secret',
    label: 'a Google OAuth client secret',
    pattern: /\bGOCSPX-[0-9A-Za-z_-]{28}/g,
  },
  {
    id: 'aws-access-key',
    label: 'an AWS access key id',
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g,
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
  { id: 'digitalocean-token', label: 'a DigitalOcean token', pattern: /\bdo[opr]_v1_[0-9a-f]{64}\b/g },
  {
    id: 'databricks-token',
    label: 'a Databricks token',
    pattern: /\bdapi[0-9a-f]{32}(?:-\d)?\b/g,
    accept: random(8),
  },
  { id: 'heroku-key', label: 'a Heroku API key', pattern: /\bHRKU-[A-Za-z0-9_-]{60}/g },
  {
    id: 'supabase-token',
    label: 'a Supabase token',
    pattern: /\b(?:sbp_[0-9a-f]{40}|sb_secret_[A-Za-z0-9_-]{30,})/g,
  },
  {
    id: 'terraform-token',
    hint: '.atlasv1.',
    label: 'a Terraform Cloud token',
    pattern: /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}/g,
  },
  { id: 'pulumi-token', label: 'a Pulumi token', pattern: /\bpul-[0-9a-f]{40}\b/g },
  { id: 'vault-token', label: 'a HashiCorp Vault token', pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{90,300}/g },
  {
    id: 'vercel-token',
    label: 'a Vercel token',
    pattern: /\bvc[pikar]_[A-Za-z0-9]{20,60}\b/g,
    accept: random(8),
  },
  {
    id: 'cloudflare-token',
    label: 'a Cloudflare API token',
    pattern: /\b(?:cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}\b/g,
  },
  {
    id: 'tailscale-key',
    label: 'a Tailscale key',
    pattern: /\btskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}/g,
  },
  {
    id: 'onepassword-token',
    label: 'a 1Password service account token',
    pattern: /\bops_ey[A-Za-z0-9+/=]{100,}/g,
  },
  {
    id: 'doppler-token',
    label: 'a Doppler token',
    pattern: /\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}/g,
  },
  // Code hosting and package registries
  {
    id: 'github-token',
    label: 'a GitHub token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  {
    id: 'gitlab-token',
    label: 'a GitLab token',
    pattern: /\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ffct|imt|agent)-[0-9A-Za-z_-]{20,}/g,
  },
  { id: 'npm-token', label: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { id: 'pypi-token', label: 'a PyPI token', pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g },
  { id: 'docker-token', label: 'a Docker Hub token', pattern: /\bdckr_pat_[A-Za-z0-9_-]{27,}/g },
  // SaaS
  { id: 'slack-token', label: 'a Slack token', pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g },
  { id: 'slack-app-token', label: 'a Slack app token', pattern: /\bxapp-\d-[A-Za-z0-9-]{10,}/g },
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
    pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g,
  },
  { id: 'stripe-key', label: 'a Stripe secret key', pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}/g },
  { id: 'stripe-webhook-secret', label: 'a Stripe webhook secret', pattern: /\bwhsec_[A-Za-z0-9+/]{24,}/g },
  {
    id: 'sendgrid-key',
    label: 'a SendGrid API key',
    pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g,
  },
  { id: 'twilio-key', label: 'a Twilio API key', pattern: /\bSK[0-9a-fA-F]{32}\b/g, accept: random(8) },
  { id: 'mailgun-key', label: 'a Mailgun API key', pattern: /\bkey-[0-9a-f]{32}\b/g, accept: random(8) },
  { id: 'mailchimp-key', hint: '-us', label: 'a Mailchimp API key', pattern: /\b[0-9a-f]{32}-us\d{1,2}\b/g },
  { id: 'shopify-token', label: 'a Shopify token', pattern: /\bshp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b/g },
  { id: 'square-token', label: 'a Square token', pattern: /\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}/g },
  { id: 'figma-token', label: 'a Figma token', pattern: /\bfigd_[A-Za-z0-9_-]{40,200}/g },
  { id: 'linear-key', label: 'a Linear API key', pattern: /\blin_api_[A-Za-z0-9]{40}\b/g },
  {
    id: 'notion-token',
    label: 'a Notion token',
    pattern: /\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b/g,
  },
  { id: 'atlassian-token', label: 'an Atlassian API token', pattern: /\bATATT3[A-Za-z0-9_=-]{150,}/g },
  { id: 'postman-key', label: 'a Postman API key', pattern: /\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}\b/g },
  { id: 'newrelic-key', label: 'a New Relic key', pattern: /\bNR(?:AK|II|JS)-[A-Za-z0-9]{19,32}\b/g },
  { id: 'sentry-token', label: 'a Sentry token', pattern: /\bsntry[su]_[A-Za-z0-9+/=_-]{30,}/g },
  {
    id: 'grafana-token',
    label: 'a Grafana token',
    pattern: /\b(?:glc_[A-Za-z0-9+/=]{32,}|glsa_[A-Za-z0-9]{32}_[0-9a-fA-F]{8})/g,
  },
  // Generic shapes
  {
    id: 'jwt',
    label: 'a JSON Web Token',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    id: 'bearer-token',
    hint: /bearer/i,
    label: 'a bearer token',
    pattern: /\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)/gi,
    group: 1,
    accept: random(8),
  },
  {
    id: 'basic-auth',
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
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/?#@"'<>]{0,128}:([^\s:@/?#"'<>]{1,256})@/g,
    group: 1,
    accept: notPlaceholder,
  },
  {
    id: 'secret-assignment',
    hint: /pass|secret|key|token/i,
    label: 'a value assigned to a secret-named setting',
    pattern:
      /\b(?:[A-Za-z0-9]+[_-])*(?:password|passwd|passphrase|secret|api_?key|access_?token|auth_?token|refresh_?token|client_?secret|private_?key|token)["']?\s{0,3}[:=]\s{0,3}["']?([^\s"'`,;&<>{}()[\]]{6,})/gi,
    group: 1,
    accept: (s, match) =>
      !isPlaceholder(s) &&
      !isCodeReference(s) &&
      /\d/.test(s) &&
      /[A-Za-z]/.test(s) &&
      !PAGINATION.test(match.slice(0, match.length - s.length)),
  },
]
