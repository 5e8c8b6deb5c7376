import { secretEnvValues } from './secrets/env-secrets.js'
import { redactUrlsIn } from './secrets/params.js'
import { SecretScanner } from './secrets/scanner.js'

/**
 * Builds every user-facing message of agent-tape, so the `[agent-tape]` prefix and the
 * "what failed: why. What to do." shape are written in exactly one place.
 */
export interface MessageParts {
  /** What failed, e.g. `Cannot load cassette test/__cassettes__/a.jsonl`. */
  what: string
  /** Why it failed, with the offending values filled in. */
  why: string
  /** What the user should do next. */
  fix?: string
  /** Extra lines (a report, a diff) printed after the first paragraph. */
  details?: string[]
}

export const MESSAGE_PREFIX = '[agent-tape]'

/**
 * The message, with every secret it would print (a key in a diffed prompt, a URL's credentials,
 * the value of a secret-like environment variable) replaced by a marker.
 */
export function formatMessage(parts: MessageParts): string {
  let text = `${MESSAGE_PREFIX} ${parts.what}: ${formatReason(parts)}`
  if (parts.details && parts.details.length > 0) text += `\n\n${parts.details.join('\n')}`
  return maskForPrinting(text)
}

/** Redacts the secrets in text that is about to be printed, with the secret env values of `env`. */
export function maskForPrinting(text: string, env: Record<string, string | undefined> = process.env): string {
  return createPrintMask(env)(text)
}

const masks = new WeakMap<object, { secrets: string; mask: Record<PrintReading, (text: string) => string> }>()

/** Every rule, or the shapes and environment values only (see {@link SecretScanner.redactText}). */
type PrintReading = 'all' | 'shapes'

/**
 * {@link maskForPrinting} for many texts: one scanner for all of them, which remembers the
 * texts it found clean (a conversation sent again with every request is scanned once). The
 * mask of an environment is kept while its secret values stay the same.
 */
export function createPrintMask(
  env: Record<string, string | undefined> = process.env,
  reading: PrintReading = 'all',
): (text: string) => string {
  const secrets = secretEnvValues(env)
  const key = secrets.map((s) => `${s.name}\u0000${s.value}`).join('\u0000')
  const kept = masks.get(env)
  if (kept?.secrets === key) return kept.mask[reading]
  const scanner = new SecretScanner(secrets)
  const mask = {
    all: (text: string) => scanner.redactText(redactUrlsIn(text)),
    shapes: (text: string) => scanner.redactText(redactUrlsIn(text), 'shapes'),
  }
  masks.set(env, { secrets: key, mask })
  return mask[reading]
}

/**
 * At most `max` characters of `text` for a report, masked before it is cut: a key cut in two is
 * no longer recognisable, so every place that shortens what it prints comes through here.
 *
 * @example cutForPrinting(JSON.stringify(args), 80) // '{"note":"[REDACTED:openai-key] for the refund"}'
 */
export function cutForPrinting(
  text: string,
  max: number,
  env: Record<string, string | undefined> = process.env,
): string {
  const masked = createPrintMask(env)(text)
  return masked.length > max ? `${masked.slice(0, Math.max(0, max - 1))}…` : masked
}

/** The "why. What to do." part of a message, for reports that already say what failed. */
export function formatReason({ why, fix }: Pick<MessageParts, 'why' | 'fix'>): string {
  return fix ? `${endSentence(why)} ${endSentence(fix)}` : endSentence(why)
}

function endSentence(text: string): string {
  return /[.!?:]$/.test(text) ? text : `${text}.`
}
