// Kept apart from json-diff.ts (and its text-diff dependency): the secret scanner and every error
// message name JSON paths, and they load before any report needs a diff.
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** The path of `key` inside the value at `path`: `a.b`, or `a["not an identifier"]`. */
export function joinPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path ? `${path}.${key}` : key
  return `${path}[${JSON.stringify(key)}]`
}
