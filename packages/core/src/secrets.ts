import { forEachString, mapStrings } from './json-walk.js'

/** A pattern for a secret-shaped string. */
export interface SecretRule {
  id: string
  label: string
  pattern: RegExp
}

/** Secret shapes that are redacted from inputs and refused in anything written. */
export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: 'anthropic-key',
    label: 'an Anthropic API key',
    pattern: /sk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,}/g,
  },
  {
    id: 'openai-key',
    label: 'an OpenAI API key',
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
  },
  { id: 'google-key', label: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { id: 'aws-access-key', label: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  {
    id: 'github-token',
    label: 'a GitHub token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  { id: 'slack-token', label: 'a Slack token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  {
    id: 'jwt',
    label: 'a JSON Web Token',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  { id: 'bearer-token', label: 'a bearer token', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/gi },
  {
    id: 'private-key',
    label: 'a private key',
    pattern: /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/g,
  },
]

/** Names of environment variables whose values are treated as secrets. */
export const SECRET_ENV_NAME =
  /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIALS?|AUTH|APIKEY)$|API_?KEY/i

/** Values shorter than this are not scanned for: they match too much by chance. */
const MIN_ENV_SECRET_LENGTH = 8

export interface EnvSecret {
  name: string
  value: string
}

export interface SecretFinding {
  path: string
  rule: string
  label: string
  /** The value with its middle masked, safe to print. */
  preview: string
}

/** The secret-like environment variables whose values must never be written. */
export function secretEnvValues(env: Record<string, string | undefined>): EnvSecret[] {
  const found: EnvSecret[] = []
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_ENV_SECRET_LENGTH && SECRET_ENV_NAME.test(name))
      found.push({ name, value })
  }
  return found
}

export type SecretAllowList = readonly (string | RegExp)[]

export function maskSecret(value: string): string {
  if (value.length <= 10) return `${value.slice(0, 2)}…`
  return `${value.slice(0, 6)}…${value.slice(-4)}`
}

function isAllowed(match: string, allow: SecretAllowList): boolean {
  return allow.some((entry) => (typeof entry === 'string' ? entry === match : entry.test(match)))
}

function matchesIn(text: string, envSecrets: readonly EnvSecret[], allow: SecretAllowList) {
  const found: { rule: string; label: string; match: string }[] = []
  for (const rule of SECRET_RULES) {
    for (const m of text.matchAll(rule.pattern)) {
      if (!isAllowed(m[0], allow)) found.push({ rule: rule.id, label: rule.label, match: m[0] })
    }
  }
  for (const secret of envSecrets) {
    if (text.includes(secret.value) && !isAllowed(secret.value, allow)) {
      found.push({ rule: `env:${secret.name}`, label: `the value of $${secret.name}`, match: secret.value })
    }
  }
  return found
}

/** Scans every string of a JSON value for secret shapes and secret env values. */
export function findSecrets(
  value: unknown,
  envSecrets: readonly EnvSecret[],
  allow: SecretAllowList = [],
  path = '',
): SecretFinding[] {
  const findings: SecretFinding[] = []
  forEachString(
    value,
    (text, at) => {
      for (const m of matchesIn(text, envSecrets, allow)) {
        findings.push({ path: at, rule: m.rule, label: m.label, preview: maskSecret(m.match) })
      }
    },
    path,
  )
  return findings
}

/** Replaces every secret in the strings of a JSON value with `[REDACTED:<rule>]`. */
export function redactSecrets(
  value: unknown,
  envSecrets: readonly EnvSecret[],
  allow: SecretAllowList = [],
): unknown {
  return mapStrings(value, (text) => {
    let out = text
    for (const m of matchesIn(text, envSecrets, allow)) out = out.split(m.match).join(`[REDACTED:${m.rule}]`)
    return out
  })
}
