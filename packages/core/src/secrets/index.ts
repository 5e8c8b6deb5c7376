import type { EnvSecret } from './env-secrets.js'
import { type SecretAllowList, type SecretFinding, SecretScanner } from './scanner.js'

export type { EnvSecret } from './env-secrets.js'
export { isSecretEnvName, secretEnvValues } from './env-secrets.js'
export { maskSecret } from './mask.js'
export { isSecretParamName, REDACTED_VALUE, readForm, redactUrl, redactUrlsIn } from './params.js'
export { STREAM_KEYS } from './reassemble.js'
export type { SecretRule } from './rules.js'
export { SECRET_RULES } from './rules.js'
export type { SecretAllowList, SecretFinding, SecretMatch, SharedRedactions } from './scanner.js'
export { SecretScanner } from './scanner.js'

/** Scans a JSON value for secrets, including reassembled streams and base64 bodies. */
export function findSecrets(
  value: unknown,
  envSecrets: readonly EnvSecret[],
  allow: SecretAllowList = [],
  path = '',
): SecretFinding[] {
  return new SecretScanner(envSecrets, allow).findInJson(value, path)
}

/** Replaces every secret in the strings of a JSON value with `[REDACTED:<rule>]`. */
export function redactSecrets(
  value: unknown,
  envSecrets: readonly EnvSecret[],
  allow: SecretAllowList = [],
): unknown {
  return new SecretScanner(envSecrets, allow).redactJson(value)
}
