import { realpath } from 'node:fs/promises'
import { diffCassettes, isUnanswered } from '@agent-tape/inspect'
import { HELP_OPTION, usageError } from '../args.js'
import { loadCassette } from '../cassette-files.js'
import type { CliIo, Command } from '../command.js'
import { changedPaths, gitRoot, openCommitTree, openWorkingTree } from '../diff/git-tree.js'
import { renderDiff } from '../diff/render-diff.js'
import { renderTapeChanges } from '../diff/render-tape-changes.js'
import { renderTapeChangesMarkdown } from '../diff/render-tape-changes-markdown.js'
import { compareTapeTrees } from '../diff/tape-changes.js'
import { fitToWidth } from '../output/fit.js'
import { createIgnore } from '../verify/ignore.js'

const COMMAND = 'agent-tape diff'

export const diffCli: Command = {
  spec: {
    name: 'diff',
    args: '<a> <b>',
    summary: 'Show what changed between two recordings of the same test (before and after a re-record).',
    description: [
      'Decisions are aligned by position, kind, step and key, so an inserted tool call shows as one added decision and an edited prompt as one changed model request. Changed inputs are shown field by field; changed outputs as text, tool calls, finish reason and token usage. Fields that change on every recording (the ids a provider generates, created times, request ids, timings, recordedAt, and what each provider codec names) are ignored.',
      'With --base <ref>: what the commits since <ref> changed in the cassettes of the git repository of the current folder, up to --head <ref> (default: the working tree, uncommitted changes included). Each cassette (a .jsonl file in a __cassettes__ folder, under the current folder or the paths and * / ** globs given) added, removed or changed is listed, and each one left obsolete (its test file gone, or no longer declaring its tape by a string literal, as prune reads it). For a changed one: the first decision that differs with the words of its input that changed, tool calls added or removed, steps, tokens and cost before and after, and the model, SDK and agent-tape versions and recording time of both recordings. --markdown prints it for a pull request (a job summary, $GITHUB_STEP_SUMMARY, or a comment).',
      'Exit code 0 when the recordings are the same, 1 when they differ, 2 when a file cannot be read (with --base: when the ref names no commit, or the folder is not in a git repository).',
      'To compare with the committed version: agent-tape diff --base HEAD <cassette>',
    ],
    options: {
      base: {
        type: 'string',
        value: '<ref>',
        description: 'Compare the cassettes of the repository at this commit, branch or tag with --head',
      },
      head: {
        type: 'string',
        value: '<ref>',
        description: 'With --base: the commit to compare with it (default: the working tree)',
      },
      json: { type: 'boolean', description: 'Print the differences as JSON' },
      markdown: {
        type: 'boolean',
        description: 'With --base: print GitHub Markdown (a table, then a <details> per changed cassette)',
      },
      full: {
        type: 'boolean',
        description: 'List every changed input field (default: the first 12 per decision)',
      },
      help: HELP_OPTION,
    },
    positionals: { min: 0, max: Infinity },
    examples: [
      'agent-tape diff before.jsonl test/__cassettes__/agent.test.ts/issue-412.jsonl',
      'agent-tape diff --base origin/main',
      'agent-tape diff --base origin/main --markdown \'test/**/agent.test.ts\' >> "$GITHUB_STEP_SUMMARY"',
    ],
  },
  async run({ values, positionals }, io) {
    if (typeof values.base === 'string') return diffRefs(values.base, values, positionals, io)
    if (values.head !== undefined)
      throw usageError(
        COMMAND,
        '--head is given without --base',
        'Name the base: agent-tape diff --base <ref> --head <ref>',
      )
    if (values.markdown)
      throw usageError(
        COMMAND,
        '--markdown reports a comparison of two refs, and no --base is given',
        'Add --base <ref>, or leave out --markdown',
      )
    if (positionals.length !== 2) {
      const n = positionals.length
      throw usageError(
        COMMAND,
        `expected <a> <b>, got ${n === 0 ? 'none' : `${n} argument${n === 1 ? '' : 's'}`}`,
      )
    }
    const [pathA, pathB] = positionals as [string, string]
    const a = await loadCassette('agent-tape diff', pathA, io)
    const b = await loadCassette('agent-tape diff', pathB, io)
    const diff = diffCassettes(pathA, a, pathB, b)
    // A run kept by a replay that missed ends with the request it missed.
    const last = b.decisions.at(-1)
    const run = last !== undefined && isUnanswered(last)
    if (values.json) io.stdout(`${JSON.stringify(diff, null, 2)}\n`)
    else
      io.stdout(
        fitToWidth(
          renderDiff(diff, { style: io.style, maxChanges: values.full ? Infinity : 12, run }),
          io.columns,
        ),
      )
    const same = diff.header.length === 0 && diff.entries.every((e) => e.status === 'unchanged')
    return same ? 0 : 1
  },
}

async function diffRefs(
  base: string,
  values: Record<string, unknown>,
  positionals: readonly string[],
  io: CliIo,
): Promise<number> {
  if (values.json && values.markdown)
    throw usageError(COMMAND, '--json and --markdown are both given', 'Choose one')
  if (values.full) throw usageError(COMMAND, '--full applies to two files, not to --base', 'Leave out --full')
  const root = await gitRoot(io.cwd)
  const head = typeof values.head === 'string' ? values.head : undefined
  const [baseTree, headTree] = await Promise.all([
    openCommitTree(root, base, '--base'),
    head === undefined ? openWorkingTree(root) : openCommitTree(root, head, '--head'),
  ])
  // Without paths, the cassettes under the current folder (all of them at the root).
  const limit = createIgnore(positionals)
  const include = (path: string) =>
    positionals.length > 0 ? limit(path) : !path.startsWith('../') && !path.startsWith('/')
  const changed = await changedPaths(root, baseTree, headTree)
  // git names the root by its real path: paths are shown relative to the same kind of path.
  const cwd = await realpath(io.cwd).catch(() => io.cwd)
  const report = await compareTapeTrees(baseTree, headTree, {
    root,
    cwd,
    env: io.env,
    include,
    changed,
  })
  if (values.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`)
  else if (values.markdown) io.stdout(renderTapeChangesMarkdown(report))
  else io.stdout(fitToWidth(renderTapeChanges(report, io.style), io.columns))
  return report.cassettes.length === 0 ? 0 : 1
}
