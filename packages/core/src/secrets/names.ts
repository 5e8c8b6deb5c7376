import { isCodeReference, isPlaceholder, looksRandom } from './placeholders.js'

/**
 * Credentials known by the name of what holds them: a query or form parameter, a JSON member, a
 * `name: value` or `name=value` in text, a cookie, an environment variable. One table of words
 * serves all of them, so `client_secret` is a credential wherever it is written.
 *
 * - A *strong* name says credential by itself (`password`, `client_secret`, `api_key`,
 *   `access_token`): any value that could be one is one.
 * - A *weak* name is a credential often but not always (`key`, `token`, `auth`, `session`): the
 *   value must also look machine-made, since `{"key": "INV-412"}` and a log-prob's
 *   `{"token": "Hello"}` are ordinary.
 * - A *signature* (`sig`, `X-Amz-Signature`) grants access only as a URL parameter (a signed URL);
 *   a JSON `signature` member (a webhook's, a model's thinking block's) is no credential.
 * - A qualifier word anywhere in the name makes it about a credential rather than one:
 *   `password_min_length`, `token_type`, `api_key_id`, `TOKEN_URL`, `refresh_token_expires_in`.
 */
export type NameStrength = 'strong' | 'weak' | 'signature'

/** Words that make a name a credential's: the parameter rule (`isSecretParamName`) reads them too. */
export const SECRET_WORDS: ReadonlySet<string> = new Set([
  'secret',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'token',
  'auth',
  'authorization',
  'signature',
  'sig',
  'credential',
  'credentials',
  'apikey',
  'key',
  'jwt',
  'session',
  'sessionid',
  'cookie',
])

/** Words that make a parameter a cursor or a count: `page_token`, `max_tokens`. */
export const CURSOR_WORDS: ReadonlySet<string> = new Set([
  'page',
  'next',
  'continuation',
  'cursor',
  'sync',
  'pagination',
  'max',
  'num',
  'count',
])

const STRONG_WORDS = new Set([
  'secret',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'credential',
  'credentials',
  'apikey',
  'jwt',
  'pass',
])
const WEAK_WORDS = new Set([
  'key',
  'token',
  'auth',
  'authorization',
  'session',
  'sessionid',
  'sid',
  'authtoken',
  'cookie',
])
const SIGNATURE_WORDS = new Set(['sig', 'signature'])

/** Pairs of words that name a credential together, whatever else the name says. */
const STRONG_PAIRS = new Set([
  'api key',
  'private key',
  'secret key',
  'signing key',
  'master key',
  'encryption key',
  'access key',
  'account key',
  'shared key',
  'client key',
  'license key',
  'access token',
  'refresh token',
  'id token',
  'auth token',
  'bearer token',
  'session token',
  'security token',
  'oauth token',
  'personal token',
  'bot token',
  'app token',
  'client secret',
])

/**
 * Words that make a name describe a credential, not hold one: its limits, where it lives, its
 * kind, its public id. Numbers and booleans are never credentials whatever the name.
 */
const QUALIFIER_WORDS = new Set([
  ...CURSOR_WORDS,
  'min',
  'minimum',
  'maximum',
  'length',
  'len',
  'limit',
  'limits',
  'size',
  'url',
  'uri',
  'endpoint',
  'host',
  'port',
  'path',
  'file',
  'dir',
  'home',
  'model',
  'timeout',
  'ttl',
  'expiry',
  'expires',
  'expiration',
  'expire',
  'age',
  'days',
  'type',
  'kind',
  'id',
  'ids',
  'name',
  'names',
  'usage',
  'used',
  'format',
  'method',
  'methods',
  'scheme',
  'header',
  'prefix',
  'suffix',
  'hint',
  'policy',
  'version',
  'field',
  'label',
  'required',
  'enabled',
  'disabled',
  'mode',
  'status',
  'hash',
  'hashed',
  'region',
  'manager',
  'sock',
  'socket',
  'arn',
  'ref',
  'reset',
  'rotation',
  'strength',
  'input',
  'placeholder',
  'provider',
  'store',
  'tokens',
  'parallelism',
  'index',
  'public',
  'publishable',
  'audience',
  'issuer',
  'scope',
  'scopes',
])

/** The lower-case words of a name: `X-Amz-Signature`, `clientSecret`, `DB_PASSWORD`. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
}

/**
 * How strongly a name says credential, or `undefined` when it does not. The name of a JSON
 * member, of a setting in text, of a cookie or of an environment variable.
 */
export function credentialName(name: string): NameStrength | undefined {
  // A run repeats a few hundred member names a million times.
  if (known.has(name)) return known.get(name)
  const strength = judgeName(name)
  if (known.size < 10_000) known.set(name, strength)
  return strength
}

const known = new Map<string, NameStrength | undefined>()

function judgeName(name: string): NameStrength | undefined {
  const words = wordsOf(name)
  if (words.length === 0 || words.length > 8) return undefined
  let strength: NameStrength | undefined
  const rest: string[] = []
  for (let i = 0; i < words.length; i++) {
    const pair = i + 1 < words.length ? `${words[i]} ${words[i + 1]}` : ''
    if (STRONG_PAIRS.has(pair)) {
      strength = 'strong'
      i++
      continue
    }
    const word = words[i]!
    if (STRONG_WORDS.has(word) || /(?:password|passwd|secret|apikey|passphrase)$/.test(word))
      strength = 'strong'
    else if (WEAK_WORDS.has(word)) strength ??= 'weak'
    else if (SIGNATURE_WORDS.has(word)) strength ??= 'signature'
    else rest.push(word)
  }
  if (!strength) return undefined
  if (rest.some((w) => QUALIFIER_WORDS.has(w))) return undefined
  return strength
}

/** Values that switch a setting rather than hold a secret (`SKIP_AUTH=true`). */
export const FLAG_VALUE =
  /^(?:true|false|yes|no|on|off|0|1|enabled?|disabled?|none|null|undefined|nil|required|optional)$/i

/** A reference to where a secret lives, not the secret: an ARN, a secret manager path, a vault URI. */
const SECRET_REFERENCE =
  /^(?:arn:[a-z-]+:|projects\/[^/]+\/secrets\/|(?:vault|op|sm|gcpsm|azkv|awssm|ssm|secretsmanager|k8s|env|file):\/?\/?|\$\{\{|\{\{)/i

/**
 * A digest names content by its hash: `sha256:…` (an environment read as agent-tape stores it),
 * a kind and a hash (`llm:0a6852d156bb1327`, a decision's key).
 */
const DIGEST = /^[a-z][a-z0-9-]{0,15}:[0-9a-f]{8,}$/i

/** Words that stand for a credential in examples: `password: password`, `token=token`. */
const STAND_IN =
  /^(?:pass(?:word|wd)?|secret|token|api[_-]?key|key|changeme|change[_-]me|admin|root|test|user(?:name)?)$/i

/** A word written where a credential goes in an example (`postgres://user:password@…`). */
export function isStandIn(value: string): boolean {
  return STAND_IN.test(value)
}

/**
 * Whether a value held by a credential-named field is one: not a placeholder, a reference, a
 * flag, a number, prose or a plain word. A weak name needs a machine-made value as well.
 */
export function isCredentialValue(strength: NameStrength, raw: string): boolean {
  const value = raw.trim()
  if (value.length < 6 || value.length > 4096) return false
  if (/\s/.test(value) || FLAG_VALUE.test(value) || /^[\d.,:+-]+$/.test(value)) return false
  if (STAND_IN.test(value) || isPlaceholder(value) || isCodeReference(value)) return false
  if (TYPE_NAME.test(value) || PUBLIC_KEY.test(value)) return false
  if (SECRET_REFERENCE.test(value) || isPlainUrl(value) || DIGEST.test(value) || isFilePath(value))
    return false
  if (strength === 'strong') {
    // `change-me-please`, `my-dev-password`: a phrase, not a password; a password mixes in a
    // digit, a capital or a symbol.
    return !/^[a-z]+(?:[-_.][a-z]+)*$/.test(value)
  }
  if (value.length < 16) return false
  // A resource's id (`SM5bfc0e18…`, a Twilio sid: its kind's letters and hex digits), whole or
  // cut short by a printer, which masked it whole before it cut it.
  if (strength === 'weak' && KIND_AND_HEX.test(value)) return false
  // An identifier made of a digest or a UUID (a cache key, a content hash, an idempotency key, a
  // Twilio `SM…` sid) has the look of a key and is not one: what is left without them is words.
  if (strength === 'weak' && !looksRandom(value.replace(IDENTIFIER_PART, '-'), 12)) return false
  return looksRandom(value.replace(/%[0-9A-Fa-f]{2}/g, 'A'), 12)
}

/**
 * The parts of a value that identify rather than grant: a UUID, a hex digest of 32 hex digits or
 * more, with the short letters of a resource's kind before it (`SM`, `AC`, `sha256-`).
 */
const IDENTIFIER_PART =
  /(?:\b[A-Za-z]{1,4}[_-]?)?(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32,})(?![0-9a-f])/gi

/** An id of a kind: a few letters (`SM`, `AC`, `MG`), then only lower-case hex digits, perhaps cut (`…`). */
const KIND_AND_HEX = /^[A-Za-z]{1,4}[_-]?[0-9a-f]{14,}…?$/

/**
 * A type where a value would be, in a declaration (`password: String`, `password :: Text`,
 * `api_key: SecretStr`, `$password: String!`): the name's type, not its value.
 */
const TYPE_NAME =
  /^(?:Secret)?(?:Str|String|Text|Bytes|ByteString|Buffer|Any|Object|Option|Optional|Maybe|Credentials?|Password|Token|Key|Uuid|UUID|Url|URL|Int|Integer|Long|Bool|Boolean|Char|Value|Field|Scalar)[!?]?$/

/**
 * Keys that are public by design, published in web pages and configs: Stripe's and Mapbox's
 * publishable keys (`pk_live_…`, `pk.eyJ…`), Datadog's client tokens (`pub…`), an age public
 * key (`age1…`), a Nostr public key (`npub1…`).
 */
const PUBLIC_KEY = /^(?:pk[._](?:live_|test_)?[A-Za-z0-9]|pub[0-9a-f]{32}$|age1[02-9ac-hj-np-z]{50,}$|npub1)/

/** `views/test/run.html`, `~/.config/app`: a place, not a value (a base64 key has random runs). */
function isFilePath(value: string): boolean {
  return /^(?:~|\.{1,2})?\/?[\w.@-]+(?:\/[\w.@-]+)+\/?$/.test(value) && !looksRandom(value, 12)
}

function isPlainUrl(value: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false
  try {
    return new URL(value).password === ''
  } catch {
    return false
  }
}

/** The private members of a JSON Web Key (RFC 7518): a JWK with any of them is a private key. */
const JWK_PRIVATE = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'priv'])

/** Whether `member` of `holder` is a private part of a JSON Web Key. */
export function isJwkPrivateMember(holder: Record<string, unknown>, member: string): boolean {
  return JWK_PRIVATE.has(member) && typeof holder.kty === 'string' && typeof holder[member] === 'string'
}
