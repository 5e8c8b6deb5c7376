/**
 * Tests that tell a secret from text with the same shape: documentation placeholders
 * (`YOUR_API_KEY_HERE`, `sk-xxxxxxxx`, `<token>`), code that names a secret without holding it
 * (`process.env.API_KEY`), and words that happen to follow a key prefix (`sk-learn-compatible`).
 */

// Words count only between separators, so that a random key that happens to contain "your"
// is still a key.
const PLACEHOLDER_WORDS =
  /(?:^|[\s_.:<{[(-])(?:your|example|placeholder|redacted|changeme|dummy|sample|insert|replace|here)(?:[\s_.:>}\])-]|$)/i
// `EXAMPLE` counts inside a key's own characters too: published examples are written so
// (`AKIAIOSFODNN7EXAMPLE`), and no random key spells it.
const PLACEHOLDER_MARKS = /xxxx|XXXX|\*\*\*|\.\.\.|…|<|>|\{\{|\$\{|%[A-Z_]+%|example/i

/** A value written to stand for a secret rather than be one. */
export function isPlaceholder(value: string): boolean {
  // `%5BREDACTED%5D` is `[REDACTED]` in a URL.
  const text = value.includes('%') ? value.replace(/%[0-9A-Fa-f]{2}/g, ' ') : value
  if (PLACEHOLDER_WORDS.test(text) || PLACEHOLDER_MARKS.test(text)) return true
  // Very low variety (`aaaaaaaa`, `00000000`, `abcabcabc`) is a filler, not a key.
  return new Set(value).size <= 3
}

/**
 * Placeholder words and marks at the end of a value (`XXXX`, `-example`, `_here`, `...`), which a
 * pattern that allows those characters swallows after a whole key. A word glued to the key with
 * no separator (`AKIAIOSFODNN7EXAMPLE`) is part of the key's own characters: an example key.
 */
const PLACEHOLDER_TAIL =
  // A run of one mark is one step (the look-behind): split into several, a long run of `x` or `*`
  // would be tried in exponentially many ways before a text that does not end in one fails.
  /(?:[-_.:](?:example|sample|placeholder|here|redacted|changeme|dummy|fake|your)(?:[-_]?key)?|(?<!x)x{4,}|(?<!\*)\*{3,}|(?<!\.)\.{3,}|(?<!…)…+)+$/i

/**
 * `value` without the placeholder words and marks at its end, or `undefined` when it has none:
 * a key directly followed by `XXXX` is judged by its own characters, not by its neighbours.
 */
export function withoutPlaceholderTail(value: string): string | undefined {
  const tail = PLACEHOLDER_TAIL.exec(value)
  return tail && tail.index > 0 ? value.slice(0, tail.index) : undefined
}

/** `process.env.API_KEY`, `config.apiKey`, `os.environ[...]`, `$API_KEY`: a reference, not a value. */
export function isCodeReference(value: string): boolean {
  if (/^\$|^(?:process\.env|import\.meta\.env|os\.environ|env)\b/.test(value)) return true
  // `config.apiKey`, `std::env::var` (Rust), `System.fetch_env!` (Elixir): a path in code.
  return /^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+[!?]?$/.test(value) && !/\d/.test(value)
}

/**
 * Whether the body of a match looks machine-generated: it contains a digit and a letter, and a
 * run of at least `minRun` letters and digits with no separator. Words joined by hyphens
 * (`sk-learn-compatible-estimator`) have neither.
 */
export function looksRandom(value: string, minRun: number): boolean {
  if (!/\d/.test(value) || !/[A-Za-z]/.test(value)) return false
  let run = 0
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
    run = alnum ? run + 1 : 0
    if (run >= minRun) return true
  }
  return false
}
