/**
 * Identity of the code that drives the agent (the "harness"): which commit and which tree of
 * the configured paths a cassette was recorded under. Replaying under a different tree is
 * reported, because the recording may no longer describe the code path that runs.
 */
export type HarnessIdentity =
  | {
      git: true
      commit: string
      /** Paths whose tree is fingerprinted; empty means none were configured. */
      paths: string[]
      /** sha256 (16 hex) over the HEAD trees of `paths` plus their uncommitted changes. */
      tree: string | null
      dirty: boolean
    }
  | { git: false; reason: string }

/** Computes the harness identity; the Node implementation reads it from git. */
export interface HarnessProvider {
  identify(paths: readonly string[]): Promise<HarnessIdentity>
}

export interface HarnessComparison {
  matches: boolean
  /** Explanation when it does not match, or why no comparison was possible. */
  note?: string
}

export function compareHarness(
  recorded: HarnessIdentity | undefined,
  current: HarnessIdentity,
): HarnessComparison {
  if (!recorded) return { matches: true, note: 'the cassette has no harness identity' }
  if (!recorded.git || !current.git) {
    const reason = !current.git ? current.reason : 'the cassette was recorded outside a git checkout'
    return { matches: true, note: `harness not compared: ${reason}` }
  }
  if (current.paths.length === 0) return { matches: true, note: 'no harness paths configured' }
  if (recorded.paths.join('\n') !== current.paths.join('\n')) {
    return {
      matches: false,
      note: `the harness paths changed (recorded ${JSON.stringify(recorded.paths)}, now ${JSON.stringify(current.paths)})`,
    }
  }
  if (recorded.tree !== current.tree) {
    const dirty = current.dirty ? ' (the working tree has uncommitted changes there)' : ''
    return {
      matches: false,
      note: `the code under ${current.paths.join(', ')} differs from the recording (recorded at commit ${recorded.commit.slice(0, 12)}${recorded.dirty ? ' with uncommitted changes' : ''}, now ${current.commit.slice(0, 12)}${dirty})`,
    }
  }
  return { matches: true }
}
