import { joinPath } from '../json-path.js'
import { mapStrings } from '../json-walk.js'
import type { EnvSecret } from './env-secrets.js'
import { maskSecret } from './mask.js'
import { reassembledTexts, redactStreams } from './reassemble.js'
import { SECRET_RULES } from './rules.js'

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

const WORD_MATCH_BELOW = 8
const BASE64 = /^[A-Za-z0-9+/]{16,}={0,2}$/

/**
 * Finds secrets in text: the shapes of {@link SECRET_RULES} and the values of secret-like
 * environment variables, minus an allow list. Strings already found clean are remembered, so
 * a conversation history sent again with every request is scanned once.
 */
export class SecretScanner {
  private readonly env: EnvMatcher[]
  private readonly allow: SecretAllowList
  private readonly clean = new Set<string>()

  constructor(envSecrets: readonly EnvSecret[] = [], allow: SecretAllowList = []) {
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

  /** The secrets in `text`, in order, without overlaps. */
  matches(text: string): SecretMatch[] {
    if (this.clean.has(text)) return []
    const found: SecretMatch[] = []
    for (const rule of SECRET_RULES) {
      if (rule.hint !== undefined && !hasHint(text, rule.hint)) continue
      for (const m of text.matchAll(rule.pattern)) {
        const secret = rule.group ? m[rule.group] : m[0]
        if (!secret || (rule.accept && !rule.accept(secret, m[0])) || this.isAllowed(secret)) continue
        const start = m.index + (rule.group ? m[0].lastIndexOf(secret) : 0)
        found.push({ rule: rule.id, label: rule.label, start, end: start + secret.length })
      }
    }
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
    if (found.length === 0) {
      this.clean.add(text)
      return found
    }
    return withoutOverlaps(found)
  }

  /** `text` with every secret replaced by `[REDACTED:<rule>]`. */
  redactText(text: string): string {
    const found = this.matches(text)
    if (found.length === 0) return text
    let out = ''
    let from = 0
    for (const m of found) {
      out += `${text.slice(from, m.start)}[REDACTED:${m.rule}]`
      from = m.end
    }
    return out + text.slice(from)
  }

  /** A copy of a JSON value with the secrets in its strings redacted (the value itself when clean). */
  redactJson(value: unknown): unknown {
    return mapStrings(value, (text) => this.redactText(text))
  }

  /**
   * A copy of a JSON value as it may be shown: secrets redacted in its strings and in the text
   * its streams reassemble to (the marker stands where the secret began). For printing a
   * cassette that was written without the scan, or by an older version.
   */
  redactForReading(value: unknown): unknown {
    // Streams first: a piece redacted on its own would hide the rest of the secret from the join.
    return this.redactJson(redactStreams(value, (text) => this.matches(text)))
  }

  /**
   * Every secret a reader of this JSON value could see: in its strings, in strings that are
   * base64 (a binary body), and in the text a streamed answer reassembles to, where no single
   * event holds the whole secret.
   */
  findInJson(value: unknown, path = ''): SecretFinding[] {
    const findings: SecretFinding[] = []
    const report = this.reporter(findings)
    walkStrings(value, path, (text, at) => {
      report(text, at)
      if (text.length >= 16 && text.length % 4 === 0 && BASE64.test(text)) {
        report(Buffer.from(text, 'base64').toString('latin1'), () => `${at()} (base64-decoded)`)
      }
      const decoded = percentDecoded(text)
      if (decoded !== undefined) report(decoded, () => `${at()} (URL-decoded)`)
    })
    for (const stream of reassembledTexts(value, path)) report(stream.text, () => stream.path)
    return findings
  }

  /** Only the secrets in the texts the streams inside a JSON value reassemble to. */
  findInStreams(value: unknown, path = ''): SecretFinding[] {
    const findings: SecretFinding[] = []
    const report = this.reporter(findings)
    for (const stream of reassembledTexts(value, path)) report(stream.text, () => stream.path)
    return findings
  }

  private reporter(findings: SecretFinding[]) {
    return (text: string, at: () => string) => {
      for (const m of this.matches(text)) {
        const preview = m.rule.startsWith('env:')
          ? `${m.end - m.start} chars`
          : maskSecret(text.slice(m.start, m.end))
        findings.push({ path: at(), rule: m.rule, label: m.label, preview })
      }
    }
  }

  private isAllowed(secret: string): boolean {
    return this.allow.some((entry) => (typeof entry === 'string' ? entry === secret : entry.test(secret)))
  }
}

/**
 * Calls `fn` for every string of a JSON value, with its path built only when asked for: a
 * cassette has hundreds of thousands of strings and almost none of them is ever reported.
 */
function walkStrings(value: unknown, root: string, fn: (text: string, at: () => string) => void): void {
  const steps: (string | number)[] = []
  const at = () =>
    steps.reduce<string>(
      (path, step) => (typeof step === 'number' ? `${path}[${step}]` : joinPath(path, step)),
      root,
    ) || '(root)'
  const visit = (node: unknown) => {
    if (typeof node === 'string') fn(node, at)
    else if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        steps.push(i)
        visit(node[i])
        steps.pop()
      }
    } else if (typeof node === 'object' && node !== null) {
      for (const key of Object.keys(node)) {
        steps.push(key)
        visit((node as Record<string, unknown>)[key])
        steps.pop()
      }
    }
  }
  visit(value)
}

function hasHint(text: string, hint: string | RegExp): boolean {
  return typeof hint === 'string' ? text.includes(hint) : hint.test(text)
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

/** The text with its %XX escapes (and form `+` spaces) decoded, when it has any. */
function percentDecoded(text: string): string | undefined {
  if (!/%[0-9A-Fa-f]{2}/.test(text)) return undefined
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
