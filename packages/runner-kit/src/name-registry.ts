import { ConfigError } from '@agent-tape/core/runtime'
import { cassetteNameFor } from './cassette-path.js'

interface Claim {
  /** The test's names from the outermost `describe`, joined by ` > `. */
  testName: string
  line?: number
}

/**
 * Detects two tapes of one test file that would share a cassette: one name in one `describe`
 * path (or in two whose folders come out the same). They would record into, and replay from,
 * one file. Runners claim every tape when the test is defined.
 */
export class TapeNameRegistry {
  private readonly files = new Map<string, Map<string, Claim & { name: string }>>()

  /**
   * Claims the cassette of the tape `name` inside `describes` for a test of `testFile`; throws a
   * {@link ConfigError} if another tape of the file has it. Returns the cassette's name.
   */
  claim(testFile: string, name: string, describes: readonly string[], claim: Claim): string {
    const cassette = cassetteNameFor(testFile, describes, name)
    let claims = this.files.get(testFile)
    if (!claims) {
      claims = new Map()
      this.files.set(testFile, claims)
    }
    const shared = cassette === name ? '' : ` (${cassette}.jsonl)`
    const previous = claims.get(cassette)
    if (previous) {
      throw new ConfigError({
        what: `Duplicate tape name ${JSON.stringify(name)} in ${testFile}`,
        why: `the tests "${previous.testName}"${at(previous)} and "${claim.testName}"${at(claim)} would share one cassette${shared}`,
        fix: 'Give each tape of a describe block its own name',
      })
    }
    // macOS and Windows file systems ignore case: "Refund" and "refund" are one file there.
    const folded = cassette.toLowerCase()
    const twin = [...claims.entries()].find(([other]) => other.toLowerCase() === folded)
    if (twin) {
      throw new ConfigError({
        what: `Tape names ${JSON.stringify(twin[0])} and ${JSON.stringify(cassette)} in ${testFile} differ only in case`,
        why: `the tests "${twin[1].testName}"${at(twin[1])} and "${claim.testName}"${at(claim)} would share one cassette on macOS and Windows, whose file systems ignore case`,
        fix: 'Give each tape of a describe block a name that differs in more than case',
      })
    }
    claims.set(cassette, { ...claim, name })
    return cassette
  }

  /**
   * Claims the cassette of a setup tape (`beforeAll.tape`, `afterAll.tape`) inside `describes`:
   * one per hook and block, and no test's tape of the block may have the hook's name.
   */
  claimSetup(testFile: string, hook: 'beforeAll' | 'afterAll', describes: readonly string[]): string {
    const cassette = cassetteNameFor(testFile, describes, hook)
    const previous = this.files.get(testFile)?.get(cassette)
    const scope = describes.length > 0 ? `describe ${JSON.stringify(describes.join(' > '))}` : 'the file'
    if (previous?.testName === setupName(describes, hook)) {
      throw new ConfigError({
        what: `Two ${hook}.tape hooks in ${scope} of ${testFile}`,
        why: `a setup tape is the cassette ${cassette}.jsonl of its block: one ${hook}.tape per describe block`,
        fix: `Do the setup in one ${hook}.tape, or move one of them into a describe block of its own`,
      })
    }
    return this.claim(testFile, hook, describes, { testName: setupName(describes, hook) })
  }

  /**
   * Whether the tape name `name` is claimed once in `testFile`: only then may its tape read a
   * cassette written before cassettes were named by their describe path (see `legacy-cassette.ts`).
   */
  isUnique(testFile: string, name: string): boolean {
    return [...(this.files.get(testFile)?.values() ?? [])].filter((c) => c.name === name).length === 1
  }
}

function at(claim: Claim): string {
  return claim.line === undefined ? '' : ` (line ${claim.line})`
}

function setupName(describes: readonly string[], hook: string): string {
  return [...describes, `${hook}.tape`].join(' > ')
}
