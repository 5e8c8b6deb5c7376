import { ConfigError } from '@agent-tape/core/runtime'

/** The folder, beside each test file, that holds one folder of cassettes per test file. */
export const DEFAULT_CASSETTE_DIR = '__cassettes__'

// Letters, digits, space, ".", "-", "_" and "@": a file name on every platform, and no
// character a shell or a test-name pattern treats specially beyond what the command quotes.
const NAME = /^[\p{L}\p{N}_@-](?:[\p{L}\p{N} ._@-]{0,118}[\p{L}\p{N}_@-])?$/u
// The same for a name of ASCII letters and digits, the common case: a pattern of Unicode properties
// costs each test file milliseconds to compile the first time it is used.
const ASCII_NAME = /^[A-Za-z0-9_@-](?:[A-Za-z0-9 ._@-]{0,118}[A-Za-z0-9_@-])?$/

// Windows reserves these as device names, whatever their case and extension (`CON.jsonl`).
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[1-9]|lpt[1-9])(?:\.|$)/i

/** Throws a {@link ConfigError} unless `name` can name a cassette file on every platform. */
export function assertTapeName(name: unknown, testFile: string): asserts name is string {
  if (typeof name === 'string' && WINDOWS_DEVICE.test(name)) {
    throw new ConfigError({
      what: `Invalid tape name ${JSON.stringify(name)} in ${testFile}`,
      why: 'the name becomes the cassette file name, and Windows reserves CON, PRN, AUX, NUL, COM1 to COM9 and LPT1 to LPT9 (in any case) as device names, so the cassette could not be checked out there',
      fix: `Name the tape after the scenario, e.g. it.tape("${name}-case", ...)`,
    })
  }
  if (typeof name === 'string' && (ASCII_NAME.test(name) || NAME.test(name)) && !name.includes('..')) return
  throw new ConfigError({
    what: `Invalid tape name ${JSON.stringify(name)} in ${testFile}`,
    why: 'the name becomes the cassette file name, so it is 1 to 120 letters, digits, spaces, ".", "-", "_" or "@", starting and ending with a letter, digit, "-", "_" or "@"',
    fix: 'Name the tape after the scenario, e.g. it.tape("issue-412", ...)',
  })
}

export interface CassettePathInput {
  /** The test file, relative to the project root, with `/` separators. */
  testFile: string
  /** The tape name given to `it.tape(name, fn)`. */
  name: string
  /** The names of the `describe` blocks around the tape, outermost first (default: none). */
  describes?: readonly string[]
  /** Folder relative to the test file's directory (default `__cassettes__`). */
  cassetteDir?: string
}

/**
 * Where a tape's cassette lives, relative to the project root with `/` separators:
 * `<test dir>/<cassetteDir>/<test file name>/<describe>/…/<name>.jsonl`, a folder for each
 * `describe` around the tape (as a snapshot is keyed by the describe path), so that two tapes with
 * one name in different describes have a cassette each. It depends only on the test file and
 * the names, so it is the same on every run, machine and platform.
 *
 * @example
 * cassettePathFor({ testFile: 'test/agent.test.ts', name: 'issue-412' })
 * // 'test/__cassettes__/agent.test.ts/issue-412.jsonl'
 * cassettePathFor({ testFile: 'test/agent.test.ts', describes: ['billing'], name: 'refund' })
 * // 'test/__cassettes__/agent.test.ts/billing/refund.jsonl'
 */
export function cassettePathFor({
  testFile,
  name,
  describes = [],
  cassetteDir = DEFAULT_CASSETTE_DIR,
}: CassettePathInput): string {
  return `${cassetteFolderFor(testFile, cassetteDir)}/${cassetteNameFor(testFile, describes, name)}.jsonl`
}

/**
 * A tape's cassette relative to its test file's folder, without `.jsonl`: `billing/refund`. What
 * tells two tapes of one file apart, and what obsolete cassettes are judged by.
 */
export function cassetteNameFor(testFile: string, describes: readonly string[], name: string): string {
  assertTapeName(name, testFile)
  return [...describes.map(describeFolder), name].join('/')
}

// What a describe's name may not hold in a folder name: anything but letters, digits, space,
// ".", "-", "_" and "@" (a tape name's characters).
const NOT_IN_FOLDER = /[^\p{L}\p{N} ._@-]+/gu

/**
 * The folder a `describe` gives its tapes' cassettes: its name, with each run of characters a
 * file name cannot hold everywhere replaced by `-` (`GET /users` is `GET -users`), without the
 * spaces and dots Windows drops at the ends, and at most 120 characters. A describe is named
 * for people, not for files, so it is made to fit rather than refused; two describes that
 * come out the same are refused as one cassette for two tapes.
 */
export function describeFolder(describe: string): string {
  let folder = describe
    .replace(NOT_IN_FOLDER, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[ .]+|[ .]+$/g, '')
    .slice(0, 120)
    .replace(/[ .]+$/, '')
  if (folder === '') folder = '_'
  return WINDOWS_DEVICE.test(folder) ? `_${folder}` : folder
}

/** The folder that holds the cassettes of one test file. */
export function cassetteFolderFor(testFile: string, cassetteDir = DEFAULT_CASSETTE_DIR): string {
  const file = toPosix(testFile)
  const slash = file.lastIndexOf('/')
  const dir = slash === -1 ? '' : file.slice(0, slash)
  return joinPosix(dir, toPosix(cassetteDir), file.slice(slash + 1))
}

export function toPosix(path: string): string {
  return path.replace(/\\/g, '/')
}

function joinPosix(...parts: string[]): string {
  const out: string[] = []
  for (const segment of parts.join('/').split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop()
    else out.push(segment)
  }
  return out.join('/')
}
