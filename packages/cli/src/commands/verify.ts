import { isAbsolute, resolve } from 'node:path'
import { type HarnessProvider, secretEnvValues } from '@agent-tape/core/internal'
import { createGitHarness } from '@agent-tape/core/node'
import { ALLOW_SECRET_OPTION, HELP_OPTION } from '../args.js'
import { displayPath, findCassettes } from '../cassette-files.js'
import type { Command } from '../command.js'
import { fitToWidth } from '../output/fit.js'
import { type CassetteCheck, type CheckContext, checkCassette } from '../verify/check-cassette.js'
import { createIgnore } from '../verify/ignore.js'
import { packageRootOf } from '../verify/package-root.js'
import { readVerifyConfig } from '../verify/project-config.js'

export const verifyCli: Command = {
  spec: {
    name: 'verify',
    args: '[paths…]',
    summary: 'Check every cassette under the paths: format, versions, secrets and harness freshness. For CI.',
    description: [
      'Searches the paths (default: the current folder; node_modules and .git are skipped) for cassettes: .jsonl files in __cassettes__ folders, .jsonl files whose first line is a cassette header, and any file named directly. Runs captured in a server (@agent-tape/capture) and not yet promoted are checked only when their folder is named. Each one is loaded and validated as replay would load it (format and key-scheme versions, every line), scanned for secret-shaped strings and for the values of secret-like environment variables (*_KEY, *_TOKEN, *_SECRET, …) of this process, and its harness (the git tree of the paths recorded in its header) is compared with the current checkout.',
      'The project\'s own patterns to skip (fixtures damaged on purpose) go in the nearest package.json, as "agentTape": { "verify": { "ignore": ["test/fixtures"] } }, relative to its folder; --ignore adds to them.',
      'Prints one line per cassette and a total. A stale harness and an implausible recorded time are warnings, or problems with --strict. Exit code 0 when no problem was found, 1 when one was, 2 on bad arguments.',
    ],
    options: {
      strict: { type: 'boolean', description: 'Count a stale harness or an implausible time as a problem' },
      root: {
        type: 'string',
        value: '<dir>',
        description:
          "The project root the harness paths are relative to (default: each cassette's project, the nearest folder above it with a package.json)",
      },
      ignore: {
        type: 'string',
        multiple: true,
        value: '<pattern>',
        description:
          'Skip cassettes whose path matches (repeatable; * and ** globs; a name without / matches at any depth, e.g. --ignore fixtures)',
      },
      'allow-secret': ALLOW_SECRET_OPTION,
      json: { type: 'boolean', description: 'Print the report as JSON' },
      quiet: {
        type: 'boolean',
        short: 'q',
        description: 'Print only cassettes with warnings or problems, and the total',
      },
      help: HELP_OPTION,
    },
    positionals: { min: 0, max: Infinity },
    examples: [
      'agent-tape verify',
      'agent-tape verify --strict test/',
      "agent-tape verify --ignore 'test/**/damaged' --ignore fixtures",
    ],
  },
  async run({ values, positionals }, io) {
    const paths = positionals.length > 0 ? positionals : ['.']
    const ignored = createIgnore(strings(values.ignore))
    const project = readVerifyConfig(io.cwd)
    const all = await findCassettes('agent-tape verify', paths, io.cwd)
    // A file named on the command line is checked whatever the project's patterns say.
    const named = new Set(paths.map((p) => resolve(io.cwd, p)))
    const kept = (file: string) =>
      !ignored(displayPath(file, io.cwd)) && (named.has(resolve(file)) || !project.ignores(file))
    const found = { cassettes: all.cassettes.filter(kept), leftovers: all.leftovers.filter(kept) }
    const root =
      typeof values.root === 'string'
        ? isAbsolute(values.root)
          ? values.root
          : resolve(io.cwd, values.root)
        : undefined
    const harnesses = new Map<string, HarnessProvider>()
    const harnessFor = (file: string) => {
      const dir = root ?? packageRootOf(file, io.cwd)
      let provider = harnesses.get(dir)
      if (!provider) {
        // No reuse of a reading from before this run (the provider's cache is for a test run's
        // many tapes): run in-process twice, verify would miss an edit made in between. Within
        // the run, `identities` reads each set of paths once.
        provider = createGitHarness(dir, { cacheMs: 0 })
        harnesses.set(dir, provider)
      }
      return { root: dir, provider }
    }
    const context: CheckContext = {
      envSecrets: secretEnvValues(io.env),
      allowSecrets: strings(values['allow-secret']),
      harness: harnessFor,
      strict: values.strict === true,
      identities: new Map(),
    }
    const checks: CassetteCheck[] = []
    for (const file of found.cassettes)
      checks.push(await checkCassette(file, displayPath(file, io.cwd), context))
    const totals = { cassettes: checks.length, ok: 0, warn: 0, fail: 0, leftovers: found.leftovers.length }
    for (const c of checks) totals[c.status]++
    for (const file of found.leftovers) {
      checks.push({
        path: displayPath(file, io.cwd),
        status: 'warn',
        problems: [],
        warnings: ['a temporary file left by an interrupted cassette write; delete it'],
      })
    }
    checks.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    if (values.json) {
      io.stdout(`${JSON.stringify({ checks, totals }, null, 2)}\n`)
    } else {
      io.stdout(fitToWidth(renderReport(checks, totals, values.quiet === true, io), io.columns))
    }
    return totals.fail > 0 ? 1 : 0
  },
}

function strings(value: unknown): string[] {
  return (Array.isArray(value) ? value : []).filter((v): v is string => typeof v === 'string')
}

function renderReport(
  checks: readonly CassetteCheck[],
  totals: { cassettes: number; ok: number; warn: number; fail: number; leftovers: number },
  quiet: boolean,
  { style }: Parameters<Command['run']>[1],
): string {
  const lines: string[] = []
  const labels = { ok: style.green('ok  '), warn: style.yellow('warn'), fail: style.red('FAIL') }
  for (const c of checks) {
    if (quiet && c.status === 'ok') continue
    const notes = [...c.problems, ...c.warnings]
    const detail = notes.length > 0 ? notes[0]! : `${c.decisions} decision${c.decisions === 1 ? '' : 's'}`
    lines.push(`${labels[c.status]}  ${c.path}  ${style.redactions(detail)}`)
    for (const note of notes.slice(1)) lines.push(`      ${style.redactions(note)}`)
  }
  if (lines.length > 0) lines.push('')
  const noun = `cassette${totals.cassettes === 1 ? '' : 's'}`
  const parts = [`${totals.ok} ok`]
  if (totals.warn > 0) parts.push(`${totals.warn} with warnings`)
  parts.push(`${totals.fail} with problems`)
  let total =
    totals.cassettes === 0 ? 'No cassettes found' : `${totals.cassettes} ${noun} checked: ${parts.join(', ')}`
  if (totals.leftovers > 0)
    total += `; ${totals.leftovers} leftover temporary file${totals.leftovers === 1 ? '' : 's'}`
  lines.push(`${total}.`)
  return `${lines.join('\n')}\n`
}
