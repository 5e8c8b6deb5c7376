import { join } from 'node:path'
import {
  type Cassette,
  formatChanges,
  parseCassette,
  redactCassetteForReading,
  SecretScanner,
  secretEnvValues,
} from '@agent-tape/core/internal'
import { type CassetteDiff, diffCassettes } from '@agent-tape/inspect'
import { DEFAULT_CASSETTE_DIR } from '@agent-tape/runner-kit'
import { displayPath } from '../cassette-files.js'
import { findObsoleteFolders, obsoleteReason } from '../prune/find-obsolete.js'
import { type DecisionChange, decisionChange, toolCallsChanged } from './decision-change.js'
import type { GitTree } from './git-tree.js'
import { type RecordingSide, sideOf } from './recording-side.js'

export type { DecisionChange, InputChange } from './decision-change.js'
export type { RecordingSide } from './recording-side.js'

export type TapeChangeStatus = 'changed' | 'added' | 'removed' | 'obsolete'

export interface TapeChange {
  /** Relative to the working directory, with `/`. */
  path: string
  status: TapeChangeStatus
  before?: RecordingSide
  after?: RecordingSide
  /** The first decision that differs (changed cassettes). */
  first?: DecisionChange
  /** When the first difference is not in an input (a tool's result): the first input that changed after it. */
  firstInput?: DecisionChange
  /** When no decision differs: what changed in the header (`runtime.node: "v20…" → "v22…"`). */
  header?: string[]
  /** Tool calls made in one recording and not the other, as `name {args}`. */
  toolCalls?: { added: string[]; removed: string[] }
  /** The re-record line: `paris: 5 → 5 decisions, 420 → 431 tokens (+3%), $0.0012 → $0.0013`. */
  costLine?: string
  /** Why an obsolete cassette is: its test file is gone, or no longer declares its tape. */
  why?: string
  /** The whole comparison, as `agent-tape diff <a> <b> --json` prints it. */
  diff?: CassetteDiff
}

export interface TapeChanges {
  base: { ref: string; commit: string }
  /** `ref` and `commit` absent: the working tree. */
  head: { ref?: string; commit?: string }
  cassettes: TapeChange[]
  counts: Record<TapeChangeStatus, number>
}

export interface CompareOptions {
  root: string
  cwd: string
  env: Record<string, string | undefined>
  /** Whether a cassette (its path relative to the working directory) is compared. */
  include(path: string): boolean
  /** The paths (relative to the root) whose content differs between the trees; the others are not read twice. */
  changed: ReadonlySet<string>
}

const ORDER: readonly TapeChangeStatus[] = ['changed', 'added', 'removed', 'obsolete']

/**
 * What a pull request changed in its cassettes: each one added, removed or changed between the
 * two trees (a changed one compared decision by decision with `diffCassettes`), and each one left
 * behind by a test that no longer declares it (obsolete at head, as `prune` reads test files,
 * and not already at base). A cassette re-recorded to the same decisions is not a change.
 */
export async function compareTapeTrees(
  base: GitTree,
  head: GitTree,
  options: CompareOptions,
): Promise<TapeChanges> {
  const scanner = new SecretScanner(secretEnvValues(options.env))
  const show = (path: string) => displayPath(join(options.root, path), options.cwd)
  const cassettesOf = (tree: GitTree) =>
    new Set(tree.files.filter((f) => isCassette(f) && options.include(show(f))))
  const before = cassettesOf(base)
  const after = cassettesOf(head)
  const load = async (tree: GitTree, path: string) => {
    const text = await tree.read(path)
    const where = tree.commit ? `${tree.ref}:${path}` : show(path)
    return { text, cassette: redactCassetteForReading(parseCassette(text, where), scanner) }
  }
  const [obsoleteAtBase, obsoleteAtHead] = await Promise.all([
    obsoleteIn(base, options),
    obsoleteIn(head, options),
  ])
  const cassettes: TapeChange[] = []
  for (const path of [...new Set([...before, ...after])].sort()) {
    const shown = show(path)
    const newlyObsolete = obsoleteAtHead.has(path) && !obsoleteAtBase.has(path)
    if (before.has(path) && after.has(path) && !options.changed.has(path) && !newlyObsolete) continue
    const a = before.has(path) ? await load(base, path) : undefined
    const b = after.has(path) ? await load(head, path) : undefined
    if (!a) cassettes.push({ path: shown, status: 'added', after: sideOf(b!.cassette) })
    else if (!b) cassettes.push({ path: shown, status: 'removed', before: sideOf(a.cassette) })
    else {
      const diff = a.text === b.text ? undefined : diffCassettes(shown, a.cassette, shown, b.cassette)
      if (diff && (diff.header.length > 0 || diff.entries.some((e) => e.status !== 'unchanged')))
        cassettes.push(changeOf(shown, a.cassette, b.cassette, diff))
      else if (newlyObsolete)
        cassettes.push({
          path: shown,
          status: 'obsolete',
          before: sideOf(a.cassette),
          after: sideOf(b.cassette),
          why: obsoleteAtHead.get(path)!,
        })
    }
  }
  cassettes.sort((x, y) => ORDER.indexOf(x.status) - ORDER.indexOf(y.status) || (x.path < y.path ? -1 : 1))
  const counts = { changed: 0, added: 0, removed: 0, obsolete: 0 }
  for (const c of cassettes) counts[c.status]++
  return {
    base: { ref: base.ref!, commit: base.commit! },
    head: head.commit ? { ref: head.ref!, commit: head.commit } : {},
    cassettes,
    counts,
  }
}

/** A `.jsonl` file in a `__cassettes__` folder, as `verify` and `prune` find cassettes. */
function isCassette(path: string): boolean {
  const parts = path.split('/')
  return path.endsWith('.jsonl') && parts.includes(DEFAULT_CASSETTE_DIR) && !parts.includes('node_modules')
}

/** The obsolete cassettes of a tree (paths relative to the root), each with why. */
async function obsoleteIn(tree: GitTree, { root, cwd }: CompareOptions): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  const rel = (path: string) => path.slice(root.length + 1).replaceAll('\\', '/')
  const show = (path: string) => displayPath(path, cwd)
  for (const folder of await findObsoleteFolders([root], tree.source)) {
    for (const o of folder.obsolete) {
      found.set(rel(o.file), obsoleteReason(folder, o, show))
    }
  }
  return found
}

function changeOf(path: string, a: Cassette, b: Cassette, diff: CassetteDiff): TapeChange {
  const differing = diff.entries.filter((e) => e.status !== 'unchanged')
  const firstEntry = differing[0]
  const change: TapeChange = {
    path,
    status: 'changed',
    before: sideOf(a),
    after: sideOf(b),
    toolCalls: toolCallsChanged(diff.entries),
    costLine: diff.cost.line,
    diff,
  }
  if (!firstEntry) change.header = formatChanges(diff.header)
  else {
    change.first = decisionChange(firstEntry)
    if (change.first.input.length === 0) {
      const next = differing.find((e) => e.status === 'changed' && e.input.length > 0)
      if (next) change.firstInput = decisionChange(next)
    }
  }
  return change
}
