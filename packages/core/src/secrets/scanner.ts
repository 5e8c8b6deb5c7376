import { joinPath } from '../json-path.js'
import type { EnvSecret } from './env-secrets.js'
import { isPublishedExample } from './known-examples.js'
import { maskSecret } from './mask.js'
import { credentialName, isCredentialValue, isJwkPrivateMember } from './names.js'
import { isPlaceholder, looksRandom, withoutPlaceholderTail } from './placeholders.js'
import { reassembledTexts, redactStreams, STREAM_KEYS } from './reassemble.js'
import { SECRET_RULES, type SecretRule } from './rules.js'
import { credentialCells } from './tables.js'
import { rewritesWhole, type View, viewsOf } from './views.js'
import { unwrapped } from './wrapped.js'

export type SecretAllowList = readonly (string | RegExp)[]

/** One secret found in a text, by position. */
export interface SecretMatch {
  rule: string
  label: string
  start: number
  end: number
}

export interface SecretFinding {
  path: string
  rule: string
  label: string
  /** At most the first 4 characters of the secret, safe to print. */
  preview: string
}

interface EnvMatcher {
  secret: EnvSecret
  /** Short values match only as whole words; long ones anywhere. */
  pattern: RegExp | undefined
}

/**
 * Which rules read a text: all of them; the shapes and environment values only (a stream's
 * single events, where a name may be cut in two); the rules by name only (a stream's field
 * that came whole in one event, whose shapes its event's own scan already read).
 */
type Reading = 'all' | 'shapes' | 'names'

/**
 * What {@link SecretScanner.redactForReading} made of the items of lists it read, by reading: for
 * values that share items (the requests of a cassette, each holding the messages of the one
 * before it), so that a shared item is read once rather than once a value that holds it.
 */
export type SharedRedactions = Map<Reading, WeakMap<object, unknown>>

const WORD_MATCH_BELOW = 12
/** How many encodings deep a secret is looked for (base64 of a JSON text with an escaped key: 3). */
const MAX_DEPTH = 4
/** Texts longer than this are read by the rules in windows that overlap by {@link RULE_OVERLAP}. */
const RULE_WINDOW = 1024 * 1024
const RULE_OVERLAP = 64 * 1024
/** No rule or environment value matches fewer characters: shorter member names are not read. */
const SHORTEST_SECRET = 8
/** The rule a credential known by its name is reported under. */
export const NAMED_CREDENTIAL = 'credential-name'

/**
 * Finds secrets as the programs that read them would see them: the shapes of
 * {@link SECRET_RULES}, credentials by the names that hold them (`names.ts`), the values of
 * secret-like environment variables, in strings and in what the strings decode to (`views.ts`:
 * JSON texts, JSON escapes, base64, gzip, data URLs, percent-encoding), minus an allow list.
 * Every writer and printer of agent-tape goes through it, so what one of them hides, all hide.
 * Strings found clean are remembered, so a conversation sent again with every request is
 * scanned once.
 */
export class SecretScanner {
  private readonly env: EnvMatcher[]
  private readonly allow: SecretAllowList
  /** Texts without a secret in their characters (their views not asked), by reading. */
  private readonly plain = { all: new Set<string>(), shapes: new Set<string>() }
  /** Texts without a secret anywhere, their views included, by reading. */
  private readonly clean = { all: new Set<string>(), shapes: new Set<string>(), names: new Set<string>() }
  private shapes: SecretScanner | undefined

  /**
   * @param byName Whether credentials are also known by their names (members, settings,
   * cookies): off for what agent-tape writes itself, whose member names are its own.
   */
  constructor(
    envSecrets: readonly EnvSecret[] = [],
    allow: SecretAllowList = [],
    private readonly byName = true,
  ) {
    // A global RegExp remembers where it stopped; the allow list must answer the same every time.
    this.allow = allow.map((e) =>
      typeof e === 'string' ? e : new RegExp(e.source, e.flags.replace(/[gy]/g, '')),
    )
    this.env = envSecrets.map((secret) => ({
      secret,
      pattern:
        secret.value.length < WORD_MATCH_BELOW
          ? new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(secret.value)}(?![A-Za-z0-9])`, 'g')
          : undefined,
    }))
  }

  /** The secrets in the characters of `text`, in order, without overlaps (no decoding). */
  matches(text: string, reading: Reading = 'all'): SecretMatch[] {
    const plain = reading === 'names' ? undefined : this.plain[reading]
    if (plain?.has(text) || this.clean[reading].has(text)) return []
    let found: SecretMatch[] = []
    this.matchRules(text, reading, found)
    if (reading !== 'names') this.matchEnv(text, found)
    // A token wrapped at a column is one secret across its lines: its spans cover them all.
    const joined = unwrapped(text)
    if (joined) {
      const more: SecretMatch[] = []
      this.matchRules(joined.text, reading, more)
      if (reading !== 'names') this.matchEnv(joined.text, more)
      for (const m of more)
        if (joined.joins(m.start, m.end))
          found.push({ ...m, start: joined.original(m.start), end: joined.original(m.end - 1) + 1 })
    }
    if (reading !== 'shapes' && this.byName) {
      for (const cell of credentialCells(text)) {
        if (this.isAllowed(text.slice(cell.start, cell.end))) continue
        found.push({
          rule: NAMED_CREDENTIAL,
          label: `a credential (its column is named ${JSON.stringify(cell.column)})`,
          start: cell.start,
          end: cell.end,
        })
      }
    }
    if (found.length > 0 && text.includes('[REDACTED:')) found = withoutMarkers(text, found)
    if (found.length === 0) {
      plain?.add(text)
      return found
    }
    return withoutOverlaps(found)
  }

  private matchRules(text: string, reading: Reading, found: SecretMatch[]): void {
    if (text.length > RULE_WINDOW) {
      // A rule's repetition runs out of stack on a run of millions of characters (a blob of a
      // few megabytes): read in windows that overlap by more than any secret is long.
      for (let from = 0; ; from += RULE_WINDOW - RULE_OVERLAP) {
        const part: SecretMatch[] = []
        this.matchRules(text.slice(from, from + RULE_WINDOW), reading, part)
        for (const m of part) found.push({ ...m, start: m.start + from, end: m.end + from })
        if (from + RULE_WINDOW >= text.length) return
      }
    }
    for (const rule of SECRET_RULES) {
      if ((reading === 'shapes' || !this.byName) && rule.byName) continue
      if (reading === 'names' && !rule.byName) continue
      if (rule.hint !== undefined && !hasHint(text, rule.hint)) continue
      for (const m of text.matchAll(rule.pattern)) {
        const match = this.judge(rule, m)
        if (match) found.push(match)
      }
    }
  }

  private matchEnv(text: string, found: SecretMatch[]): void {
    for (const { secret, pattern } of this.env) {
      if (this.isAllowed(secret.value)) continue
      const rule = `env:${secret.name}`
      const label = `the value of $${secret.name}`
      if (pattern) {
        for (const m of text.matchAll(pattern))
          found.push({ rule, label, start: m.index, end: m.index + m[0].length })
        continue
      }
      for (let at = text.indexOf(secret.value); at !== -1; at = text.indexOf(secret.value, at + 1))
        found.push({ rule, label, start: at, end: at + secret.value.length })
    }
  }

  /**
   * `text` with every secret replaced by `[REDACTED:<rule>]`, in its characters and its views.
   * With `shapes`, the rules by name are left out: for pieces of a value that was already read
   * whole (a stream's events), where a name may be cut in two.
   */
  redactText(text: string, reading: 'all' | 'shapes' = 'all'): string {
    return this.redactTextAt(text, 0, reading)
  }

  /**
   * A copy of a JSON value with the secrets in its strings redacted, and the strings of members
   * whose names say credential replaced whole (the value itself when clean).
   */
  redactJson(value: unknown): unknown {
    return this.redactJsonAt(value, 0)
  }

  /**
   * A copy of a JSON value as it may be shown: secrets redacted in its strings and in the text
   * its streams reassemble to (the marker stands where the secret began). For printing a
   * cassette that was written without the scan, or by an older version.
   */
  redactForReading(value: unknown, shared?: SharedRedactions): unknown {
    // Streams first: a piece redacted on its own would hide the rest of the secret from the join.
    return this.redactJsonAt(
      redactStreams(value, (text, pieces) => this.spans(text, pieces > 1 ? 'all' : 'names')),
      0,
      'all',
      shared,
    )
  }

  /**
   * Every secret a reader of this JSON value could see: in its strings, in what they decode to,
   * in members named for credentials, and in the text a streamed answer reassembles to, where no
   * single event holds the whole secret.
   */
  findInJson(value: unknown, path = ''): SecretFinding[] {
    const findings: SecretFinding[] = []
    this.jsonFindings(value, path, 0, findings, 'all')
    this.streamFindings(value, path, findings)
    return findings
  }

  /** Only the secrets in the texts the streams inside a JSON value reassemble to. */
  findInStreams(value: unknown, path = ''): SecretFinding[] {
    const findings: SecretFinding[] = []
    this.streamFindings(value, path, findings)
    return findings
  }

  /**
   * A stream read as its reader joins it: each field's pieces joined and read by every rule; a
   * field that came in one piece read by the rules by name only (its event was read for shapes).
   */
  private streamFindings(value: unknown, path: string, out: SecretFinding[]): void {
    for (const stream of reassembledTexts(value, path, true))
      this.textFindings(stream.text, () => stream.path, 0, out, stream.pieces > 1 ? 'all' : 'names')
  }

  /**
   * The same scanner with shapes only, without the environment's values or names: for what
   * agent-tape writes itself (a header's date, versions and hashes, the names of the variables
   * it read), where a value such as `12` or a name such as `OPENAI_API_KEY` would match by chance.
   */
  shapesOnly(): SecretScanner {
    this.shapes ??= new SecretScanner([], this.allow, false)
    return this.shapes
  }

  /** Whether `text` holds a secret in its characters or its views. */
  hasSecret(text: string): boolean {
    return this.textHasSecret(text, 0)
  }

  /**
   * A rule's match as a secret, or `undefined` when it is not one: a placeholder, a published
   * example, an allowed value. A placeholder word the pattern swallowed after a whole key
   * (`…XXXX`, `…-example`) is cut off, and the key judged by its own characters.
   */
  private judge(rule: SecretRule, m: RegExpMatchArray): SecretMatch | undefined {
    const secret = rule.group ? m[rule.group] : m[0]
    if (!secret) return undefined
    const start = m.index! + (rule.group ? m[0].lastIndexOf(secret) : 0)
    let end = start + secret.length
    if (!isSecretMatch(rule, secret, m[0])) {
      const own = withoutPlaceholderTail(secret)
      if (own === undefined) return undefined
      const context = m[0].slice(0, m[0].length - secret.length + own.length)
      const again = [...context.matchAll(new RegExp(rule.pattern.source, rule.pattern.flags))].find(
        (r) => (rule.group ? r[rule.group] : r[0]) === own && r.index + r[0].length === context.length,
      )
      // What is left must be a whole key: long and random, not the prefix of a placeholder.
      if (!again || !isSecretMatch(rule, own, again[0]) || !looksRandom(own, 12)) return undefined
      end = start + own.length
    }
    const value = secret.slice(0, end - start)
    if (isPublishedExample(value) || this.isAllowed(value)) return undefined
    return { rule: rule.id, label: rule.label, start, end }
  }

  private redactTextAt(text: string, depth: number, reading: Reading = 'all'): string {
    if (this.clean[reading].has(text)) return text
    let out = text
    const found = this.matches(text, reading)
    if (found.length > 0) {
      out = ''
      let from = 0
      for (const m of found) {
        out += `${text.slice(from, m.start)}[REDACTED:${m.rule}]`
        from = m.end
      }
      out += text.slice(from)
    }
    if (depth >= MAX_DEPTH) return out
    // One view at a time, its text read again after each change: a data URL's payload is cut
    // out of the text around it; a JSON text, an escaped or a percent-encoded text is rewritten
    // redacted, so the rest stays readable; a blob is replaced whole.
    for (let round = 0; round < 16; round++) {
      const views = viewsOf(out)
      let changed = false
      for (let i = views.length - 1; i >= 0; i--) {
        const view = views[i]!
        const inner = this.viewFindings(view, depth + 1, reading)
        if (inner.length === 0) continue
        let replacement: string
        if ('json' in view) replacement = JSON.stringify(this.redactJsonAt(view.json, depth + 1, reading))
        else if (rewritesWhole(view, out.length))
          replacement = this.redactTextAt(view.text, depth + 1, reading)
        else replacement = `[REDACTED:${inner[0]!.rule}]`
        out = out.slice(0, view.start) + replacement + out.slice(view.end)
        changed = true
        break
      }
      if (!changed) break
    }
    return out
  }

  private redactJsonAt(
    value: unknown,
    depth: number,
    reading: Reading = 'all',
    shared?: SharedRedactions,
  ): unknown {
    const visit = (
      node: unknown,
      member: string | undefined,
      holder: Record<string, unknown> | undefined,
      within: Reading,
    ): unknown => {
      if (typeof node === 'string') {
        // A shape names what the secret is; a name only says that it is one.
        const redacted = this.redactTextAt(node, depth, within)
        if (redacted !== node || member === undefined) return redacted
        const bytes = shortBytesText(member, node, holder)
        const inBytes = bytes === undefined ? undefined : this.matches(bytes, within)[0]
        if (inBytes) return `[REDACTED:${inBytes.rule}]`
        return this.isNamedCredential(member, node, holder) ? `[REDACTED:${NAMED_CREDENTIAL}]` : node
      }
      if (Array.isArray(node)) {
        let copy: unknown[] | undefined
        for (let i = 0; i < node.length; i++) {
          const next = element(node[i], within)
          if (next === node[i]) continue
          copy ??= node.slice()
          copy[i] = next
        }
        return copy ?? node
      }
      if (typeof node === 'object' && node !== null) {
        const record = node as Record<string, unknown>
        const keys = Object.keys(record)
        let copy: Record<string, unknown> | undefined
        // A member's name is read as its value is (`{"tokens": {"ghp_…": {…}}}`).
        let names: string[] | undefined
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!
          const name = key.length < SHORTEST_SECRET ? key : this.redactTextAt(key, depth, within)
          if (name !== key) {
            names ??= keys.slice()
            names[i] = name
          }
          const next = visit(record[key], key, record, readingOf(key, record[key], within))
          if (next === record[key]) continue
          copy ??= { ...record }
          copy[key] = next
        }
        return names ? renamed(copy ?? record, keys, names) : (copy ?? node)
      }
      return node
    }
    // An item of a list is read by itself (no member name, no holder): what it comes to depends
    // on the item and the reading alone, so an item that several values share is read once.
    const element = (item: unknown, within: Reading): unknown => {
      if (!shared || depth !== 0 || typeof item !== 'object' || item === null)
        return visit(item, undefined, undefined, within)
      const done = shared.get(within) ?? new WeakMap<object, unknown>()
      shared.set(within, done)
      if (done.has(item)) return done.get(item)
      const next = visit(item, undefined, undefined, within)
      done.set(item, next)
      return next
    }
    return visit(value, undefined, undefined, reading)
  }

  /**
   * The spans of `text` to hide: its matches, and the span of each view that holds a secret (a
   * whole base64 blob, a whole JSON text), for callers that can only cut characters out.
   */
  private spans(text: string, reading: Reading = 'all'): SecretMatch[] {
    const found = this.matches(text, reading)
    for (const view of viewsOf(text)) {
      const inner = this.viewFindings(view, 1, reading)
      if (inner.length > 0)
        found.push({ rule: inner[0]!.rule, label: inner[0]!.label, start: view.start, end: view.end })
    }
    return found.length > 1 ? withoutOverlaps(found) : found
  }

  private textHasSecret(text: string, depth: number): boolean {
    if (this.clean.all.has(text)) return false
    const findings: SecretFinding[] = []
    this.textFindings(text, () => '', depth, findings, 'all')
    return findings.length > 0
  }

  private viewFindings(view: View, depth: number, reading: Reading): SecretFinding[] {
    const findings: SecretFinding[] = []
    if ('json' in view) this.jsonFindings(view.json, '', depth, findings, reading)
    else this.textFindings(view.text, () => '', depth, findings, reading)
    return findings
  }

  private textFindings(
    text: string,
    at: () => string,
    depth: number,
    out: SecretFinding[],
    reading: Reading,
  ): void {
    if (this.clean[reading].has(text)) return
    const before = out.length
    for (const m of this.matches(text, reading)) {
      const preview = m.rule.startsWith('env:')
        ? `${m.end - m.start} chars`
        : maskSecret(text.slice(m.start, m.end))
      out.push({ path: at(), rule: m.rule, label: m.label, preview })
    }
    if (depth < MAX_DEPTH) {
      // A view reads the same characters again: what the text itself showed is not reported twice.
      const seen = new Set(out.slice(before).map((f) => `${f.rule}\u0000${f.preview}`))
      const inner: SecretFinding[] = []
      for (const view of viewsOf(text)) {
        if ('json' in view) {
          const found: SecretFinding[] = []
          this.jsonFindings(view.json, '', depth + 1, found, reading)
          for (const f of found)
            inner.push({
              ...f,
              path: `${at()} (${view.how}${f.path && f.path !== '(root)' ? `: ${f.path}` : ''})`,
            })
        } else this.textFindings(view.text, () => `${at()} (${view.how})`, depth + 1, inner, reading)
      }
      for (const f of inner) if (!seen.has(`${f.rule}\u0000${f.preview}`)) out.push(f)
    }
    // Only a text read to the full depth is known clean.
    if (out.length === before && depth === 0) this.clean[reading].add(text)
  }

  private jsonFindings(
    value: unknown,
    root: string,
    depth: number,
    out: SecretFinding[],
    reading: Reading,
  ): void {
    const steps: (string | number)[] = []
    const at = () =>
      steps.reduce<string>(
        (path, step) => (typeof step === 'number' ? `${path}[${step}]` : joinPath(path, step)),
        root,
      ) || '(root)'
    const visit = (
      node: unknown,
      member: string | undefined,
      holder: Record<string, unknown> | undefined,
      within: Reading,
    ) => {
      if (typeof node === 'string') {
        const before = out.length
        this.textFindings(node, at, depth, out, within)
        const bytes = shortBytesText(member, node, holder)
        if (bytes !== undefined)
          this.textFindings(bytes, () => `${at()} (base64-decoded)`, depth + 1, out, within)
        if (out.length === before && member !== undefined && this.isNamedCredential(member, node, holder)) {
          out.push({
            path: at(),
            rule: NAMED_CREDENTIAL,
            label: `a credential (its field is named ${JSON.stringify(member)})`,
            preview: maskSecret(node),
          })
        }
      } else if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          steps.push(i)
          visit(node[i], undefined, undefined, within)
          steps.pop()
        }
      } else if (typeof node === 'object' && node !== null) {
        const record = node as Record<string, unknown>
        for (const key of Object.keys(record)) {
          // A member's name is read as its value is; a path never spells a secret name out.
          const before = out.length
          if (key.length >= SHORTEST_SECRET)
            this.textFindings(key, () => `${at()} (the name of a member)`, depth, out, within)
          steps.push(out.length > before ? this.redactTextAt(key, depth, within) : key)
          visit(record[key], key, record, readingOf(key, record[key], within))
          steps.pop()
        }
      }
    }
    visit(value, undefined, undefined, reading)
  }

  /** A string that is a credential by the name of the member holding it (or a JWK's private part). */
  private isNamedCredential(
    member: string,
    value: string,
    holder: Record<string, unknown> | undefined,
  ): boolean {
    if (this.isAllowed(value)) return false
    if (holder && isJwkPrivateMember(holder, member)) return value.length >= 8 && !isPlaceholder(value)
    const strength = credentialName(member)
    return strength !== undefined && strength !== 'signature' && isCredentialValue(strength, value)
  }

  private isAllowed(secret: string): boolean {
    return this.allow.some((entry) => (typeof entry === 'string' ? entry === secret : entry.test(secret)))
  }
}

/**
 * Whether a rule's match is a secret by its own characters: its rule accepts it, and it does not
 * spell `EXAMPLE`, as published examples do (`AKIAIOSFODNN7EXAMPLE`) and no random key does.
 */
function isSecretMatch(rule: SecretRule, secret: string, match: string): boolean {
  return (!rule.accept || rule.accept(secret, match)) && !/example/i.test(secret)
}

/** How a member's strings are read: a stream's events for shapes only (see {@link Reading}). */
function readingOf(key: string, value: unknown, within: Reading): Reading {
  return within === 'all' && STREAM_KEYS.has(key) && Array.isArray(value) ? 'shapes' : within
}

/**
 * The text of bytes too short for the base64 view to read (fewer than 12, written in fewer than
 * 16 characters), as a cassette stores them (`{"$bytes":"…","type":"Buffer"}`): a Buffer that
 * holds a short environment secret alone is read as the string would be.
 */
function shortBytesText(
  member: string | undefined,
  value: string,
  holder: Record<string, unknown> | undefined,
): string | undefined {
  if (member !== '$bytes' || value.replace(/=+$/, '').length >= 16 || typeof holder?.type !== 'string')
    return undefined
  return Buffer.from(value, 'base64').toString('latin1')
}

/** `record` with each of its `keys` renamed to the name at the same index, in the same order. */
function renamed(
  record: Record<string, unknown>,
  keys: readonly string[],
  names: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  keys.forEach((key, i) => {
    let name = names[i]!
    // Two names redacted alike stay two members.
    for (let n = 2; Object.hasOwn(out, name); n++) name = `${names[i]} (${n})`
    Object.defineProperty(out, name, {
      value: record[key],
      enumerable: true,
      writable: true,
      configurable: true,
    })
  })
  return out
}

function hasHint(text: string, hint: string | RegExp): boolean {
  return typeof hint === 'string' ? text.includes(hint) : hint.test(text)
}

/** agent-tape's own markers (`[REDACTED:openai-key]`, a command line's `[REDACTED:$NAME]`). */
const MARKER = /\[REDACTED:[^\]\s]{1,80}\]/g

/**
 * The matches that are not inside one of agent-tape's markers: a marker holds no secret, though
 * `https://[REDACTED:$ARG_4]@host` reads like a user and a password.
 */
function withoutMarkers(text: string, found: SecretMatch[]): SecretMatch[] {
  const markers = [...text.matchAll(MARKER)].map((m) => [m.index, m.index + m[0].length] as const)
  return found.filter((f) => !markers.some(([start, end]) => f.start >= start && f.end <= end))
}

function withoutOverlaps(found: SecretMatch[]): SecretMatch[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end)
  const kept: SecretMatch[] = []
  for (const m of found) {
    const last = kept[kept.length - 1]
    if (last && m.start < last.end) {
      last.end = Math.max(last.end, m.end)
      continue
    }
    kept.push({ ...m })
  }
  return kept
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
