/**
 * `--ignore` patterns, matched against a path relative to the current folder (with `/`):
 * `*` is any run of characters but `/`, `**` any run including `/`, `?` one character. A pattern
 * with no `/` matches a file or folder of that name at any depth (`fixtures`); one with a `/`
 * matches from the start of the path. A pattern that names a folder ignores everything in it.
 */
export function createIgnore(patterns: readonly string[]): (path: string) => boolean {
  const matchers = patterns.map(toRegExp)
  return (path) => matchers.some((re) => re.test(path))
}

function toRegExp(pattern: string): RegExp {
  const trimmed = pattern.replace(/^\.\//, '').replace(/\/+$/, '')
  let source = ''
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i]!
    if (c === '*' && trimmed[i + 1] === '*') {
      const slash = trimmed[i + 2] === '/'
      source += slash ? '(?:.*/)?' : '.*'
      i += slash ? 2 : 1
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  const anchored = trimmed.includes('/') ? `^${source}` : `(?:^|/)${source}`
  return new RegExp(`${anchored}(?:/|$)`)
}
