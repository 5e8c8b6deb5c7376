import { ConfigError } from '@agent-tape/core/context'

interface Claim {
  testName: string
  line?: number
}

/**
 * Detects two tapes with one name in one test file: they would record into, and replay
 * from, the same cassette. Runners claim every tape name when the test is defined.
 */
export class TapeNameRegistry {
  private readonly files = new Map<string, Map<string, Claim>>()

  /** Claims `name` for a test of `testFile`; throws a {@link ConfigError} if it is taken. */
  claim(testFile: string, name: string, claim: Claim): void {
    let names = this.files.get(testFile)
    if (!names) {
      names = new Map()
      this.files.set(testFile, names)
    }
    const previous = names.get(name)
    if (previous) {
      throw new ConfigError({
        what: `Duplicate tape name ${JSON.stringify(name)} in ${testFile}`,
        why: `the tests "${previous.testName}"${at(previous)} and "${claim.testName}"${at(claim)} would share one cassette`,
        fix: 'Give each tape in a file its own name',
      })
    }
    // macOS and Windows file systems ignore case: "Refund" and "refund" are one file there.
    const folded = name.toLowerCase()
    const twin = [...names.entries()].find(([other]) => other.toLowerCase() === folded)
    if (twin) {
      throw new ConfigError({
        what: `Tape names ${JSON.stringify(twin[0])} and ${JSON.stringify(name)} in ${testFile} differ only in case`,
        why: `the tests "${twin[1].testName}"${at(twin[1])} and "${claim.testName}"${at(claim)} would share one cassette on macOS and Windows, whose file systems ignore case`,
        fix: 'Give each tape in a file a name that differs in more than case',
      })
    }
    names.set(name, claim)
  }

  /** The tape names claimed in `testFile`. */
  names(testFile: string): string[] {
    return [...(this.files.get(testFile)?.keys() ?? [])]
  }
}

function at(claim: Claim): string {
  return claim.line === undefined ? '' : ` (line ${claim.line})`
}
