/** ANSI styling that collapses to plain text when colour is off, so every renderer has one code path. */
export interface Style {
  readonly enabled: boolean
  bold(text: string): string
  dim(text: string): string
  red(text: string): string
  green(text: string): string
  yellow(text: string): string
  cyan(text: string): string
  /** Highlights every `[REDACTED:…]` marker in `text`. */
  redactions(text: string): string
}

const REDACTION = /\[REDACTED:[^\]\s]*\]/g

function wrap(enabled: boolean, open: number, close: number) {
  return (text: string) => (enabled && text !== '' ? `\x1b[${open}m${text}\x1b[${close}m` : text)
}

export function createStyle(enabled: boolean): Style {
  const marker = (text: string) => (enabled ? `\x1b[1;30;43m${text}\x1b[0m` : text)
  return {
    enabled,
    bold: wrap(enabled, 1, 22),
    dim: wrap(enabled, 2, 22),
    red: wrap(enabled, 31, 39),
    green: wrap(enabled, 32, 39),
    yellow: wrap(enabled, 33, 39),
    cyan: wrap(enabled, 36, 39),
    redactions: (text) => (enabled ? text.replace(REDACTION, marker) : text),
  }
}

export interface ColorTarget {
  isTTY?: boolean
  hasColors?: (env?: Record<string, string | undefined>) => boolean
}

/**
 * Whether to colour output written to `stream`: `FORCE_COLOR` (other than `0`/`false`) forces it,
 * `NO_COLOR` (any non-empty value, https://no-color.org) turns it off, and otherwise a terminal
 * that supports colour gets it and a pipe or file does not.
 */
export function shouldColor(stream: ColorTarget, env: Record<string, string | undefined>): boolean {
  const force = env.FORCE_COLOR
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false'
  if (env.NO_COLOR) return false
  if (!stream.isTTY) return false
  return stream.hasColors ? stream.hasColors(env) : env.TERM !== 'dumb'
}
