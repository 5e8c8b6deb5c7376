import { credentialName, FLAG_VALUE, isStandIn } from './names.js'

/** The shell's working directories: `PWD` has a credential word in it, and no secret. */
const SHELL_NAME = /^(?:OLD)?PWD$/i

/**
 * Whether a variable's name says it holds a credential: a credential word (`names.ts`) and no
 * word that makes it about one (`PASSWORD_MIN_LENGTH`, `OPENAI_MAX_TOKENS`, `TOKEN_URL`,
 * `SSH_KEY_PATH`).
 */
export function isSecretEnvName(name: string): boolean {
  return !SHELL_NAME.test(name) && credentialName(name) !== undefined
}

/** Stand-ins that test setups put in a key variable (`OPENAI_API_KEY=sk-test-dummy`). */
const DUMMY_WORDS = new Set([
  'sk',
  'test',
  'testing',
  'fake',
  'dummy',
  'mock',
  'placeholder',
  'changeme',
  'example',
  'sample',
  'local',
  'dev',
  'key',
  'token',
  'secret',
  'api',
  'none',
  'not',
  'set',
  'unused',
  'x',
  'xx',
  'xxx',
  'xxxx',
])

function isDummy(value: string): boolean {
  return value
    .toLowerCase()
    .split(/[-_.:\s]+/)
    .every((word) => word === '' || DUMMY_WORDS.has(word))
}

/** An absolute path (`GOOGLE_APPLICATION_CREDENTIALS=/secrets/key.json`) names a file, it is not the secret. */
const PATH_VALUE = /^(?:\/|~\/|[A-Za-z]:[\\/]|\.\.?\/)/

export interface EnvSecret {
  name: string
  value: string
}

/** Values shorter than this are not matched: they turn up in ordinary text by chance. */
const MIN_LENGTH = 8

/**
 * The secret-like environment variables whose values must never be written or printed. A value
 * is a secret by its name and its value together: numbers, flags, paths, URLs without
 * credentials, model and region names (`gpt-4o-mini`, `us-east-1`), plain words (`postgres`),
 * dummies (`sk-test-dummy`) and values under 8 characters are not, since they turn up in
 * ordinary text (a recording's date, a token limit, a quoted URL) without being secrets.
 */
export function secretEnvValues(env: Record<string, string | undefined>): EnvSecret[] {
  // Every tape takes these, and most runs never change the environment between tapes: the
  // answer is kept per environment object with the names it had and the values of its
  // secret-like names, and computed again as soon as a name is added or removed or one of
  // those values changes (a test that sets a key between two tapes).
  const names = Object.keys(env)
  const joined = names.join('\u0000')
  const cached = snapshots.get(env)
  if (
    cached &&
    cached.names === joined &&
    cached.secretNames.every((name, i) => env[name] === cached.values[i])
  )
    return [...cached.secrets]
  const secretNames = names.filter(isSecretEnvName)
  const values = secretNames.map((name) => env[name])
  const secrets = findEnvSecrets(secretNames, values)
  snapshots.set(env, { names: joined, secretNames, values, secrets })
  return [...secrets]
}

/** An environment as {@link secretEnvValues} last read it. */
interface EnvSnapshot {
  names: string
  secretNames: string[]
  values: (string | undefined)[]
  secrets: EnvSecret[]
}

const snapshots = new WeakMap<object, EnvSnapshot>()

function findEnvSecrets(names: readonly string[], values: readonly (string | undefined)[]): EnvSecret[] {
  const found: EnvSecret[] = []
  for (let i = 0; i < names.length; i++) {
    const value = values[i]?.trim()
    if (value && isSecretEnvValue(value)) found.push({ name: names[i]!, value })
  }
  // Longest first, so that a secret containing another is redacted whole.
  return found.sort((a, b) => b.value.length - a.value.length)
}

/** Whether a secret-named variable's value could be a secret (see {@link secretEnvValues}). */
function isSecretEnvValue(value: string): boolean {
  if (value.length < MIN_LENGTH) return false
  if (FLAG_VALUE.test(value) || /^[\d.,:+-]+$/.test(value) || PATH_VALUE.test(value)) return false
  if (isDummy(value) || isStandIn(value) || isPlainUrl(value) || HOST_NAME.test(value)) return false
  // A plain word (`postgres`, `Redis`) or a name made of words and numbers (`gpt-4o-mini`,
  // `claude-3-5-sonnet-20241022`, `us-east-1`): what a setting names, not a secret.
  if (/^(?:[a-z]+|[A-Z][a-z]*|[A-Z]+)$/.test(value)) return false
  if (!/^[a-z][a-z0-9]*(?:[-.][a-z0-9]+)+$/.test(value) || !/\d/.test(value)) return true
  return value.split(/[-.]/).some(isMixed)
}

/** A host name (`sts.amazonaws.com`, `api.example.com`): where a setting points, not a secret. */
const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}$/

/** Letters and digits mixed in one part longer than a version tag (`4o`, `v2`, `o3`). */
function isMixed(part: string): boolean {
  return part.length > 4 && /\d/.test(part) && /[a-z]/.test(part)
}

function isPlainUrl(value: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false
  try {
    const url = new URL(value)
    return url.password === '' && url.username === ''
  } catch {
    return false
  }
}
