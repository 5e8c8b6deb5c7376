/** Names of environment variables whose values are treated as secrets. */
export const SECRET_ENV_NAME =
  /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PWD|CREDENTIALS?|AUTH|APIKEY|SIG|SIGNATURE)$|API_?KEY|SECRET|PASSWORD|TOKEN/i

/**
 * Variables with a secret-like name that hold no secret: the shell's working directories, and
 * names that point at where a secret lives (`GOOGLE_APPLICATION_CREDENTIALS_FILE`, `SSH_KEY_PATH`).
 */
const NOT_SECRET_NAME =
  /^(?:OLD)?PWD$|_(?:PATH|FILE|DIR|HOME|URL_PATH|ENDPOINT|HOST|PORT|ID|NAME|TYPE|MODE|COUNT|LIMIT|TTL|EXPIRY)$/i

/** Values that switch a setting rather than hold a secret (`SKIP_AUTH=true`). */
const FLAG_VALUE = /^(?:true|false|yes|no|on|off|0|1|enabled?|disabled?|none|null|undefined)$/i

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

/**
 * The secret-like environment variables whose values must never be written or printed. There is
 * no length floor: a 7-character password is as secret as a 40-character key. Values shorter
 * than 8 characters are matched only as whole words (see the scanner), so they do not match by
 * chance inside longer text; dummy values and short lowercase words are left out.
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
  const secretNames = names.filter((name) => SECRET_ENV_NAME.test(name) && !NOT_SECRET_NAME.test(name))
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
    const name = names[i]!
    const value = values[i]?.trim()
    if (!value) continue
    if (FLAG_VALUE.test(value) || PATH_VALUE.test(value) || isDummy(value)) continue
    // A short plain word (`PRIMARY_KEY=id`, `AUTH=basic`) would match ordinary text everywhere;
    // a short secret has a digit, a capital or a symbol in it (`hunter7`, `Pa$$`).
    if (value.length < 8 && /^[a-z]+$/.test(value)) continue
    found.push({ name, value })
  }
  // Longest first, so that a secret containing another is redacted whole.
  return found.sort((a, b) => b.value.length - a.value.length)
}
