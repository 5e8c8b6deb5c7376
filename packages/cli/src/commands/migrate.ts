import { CASSETTE_FORMAT_VERSION } from '@agent-tape/core/internal'
import { HELP_OPTION } from '../args.js'
import { displayPath, findCassettes } from '../cassette-files.js'
import type { Command } from '../command.js'
import { type Migration, migrateFile } from '../migrate/migrate-file.js'
import { fitToWidth } from '../output/fit.js'

export const migrateCli: Command = {
  spec: {
    name: 'migrate',
    args: '[paths…]',
    summary: `Rewrite cassettes of older formats in format ${CASSETTE_FORMAT_VERSION} (--check only says which). For CI.`,
    description: [
      'Searches the paths (default: the current folder; node_modules and .git are skipped) for cassettes as verify does, and rewrites each one written in an older cassette format in the current one, after checking that the new text reads back as exactly the same cassette. A file is replaced through a temporary file renamed over it, so it is never left half written. Cassettes already in the current format, and damaged ones, are left as they are.',
      'Prints one line per cassette, with its size before and after, and a total. Exit code 0 when nothing failed (and, with --check, nothing needs migrating), 1 otherwise, 2 on bad arguments.',
    ],
    options: {
      check: {
        type: 'boolean',
        description: 'Write nothing; exit 1 when a cassette would be rewritten or is damaged',
      },
      json: { type: 'boolean', description: 'Print the report as JSON' },
      quiet: {
        type: 'boolean',
        short: 'q',
        description: 'Print only cassettes that are (or would be) rewritten or failed, and the total',
      },
      help: HELP_OPTION,
    },
    positionals: { min: 0, max: Infinity },
    examples: ['agent-tape migrate', 'agent-tape migrate --check', 'agent-tape migrate test/__cassettes__'],
  },
  async run({ values, positionals }, io) {
    const check = values.check === true
    const paths = positionals.length > 0 ? positionals : ['.']
    const { cassettes } = await findCassettes('agent-tape migrate', paths, io.cwd)
    const results: [string, Migration][] = []
    for (const file of cassettes) {
      const shown = displayPath(file, io.cwd)
      results.push([shown, await migrateFile(file, shown, check)])
    }
    if (values.json) {
      const report = results.map(([path, r]) => ({ path, ...r }))
      io.stdout(`${JSON.stringify({ check, format: CASSETTE_FORMAT_VERSION, cassettes: report }, null, 2)}\n`)
    } else {
      io.stdout(fitToWidth(renderReport(results, check, values.quiet === true, io.style), io.columns))
    }
    const failed = results.some(([, r]) => r.status === 'failed')
    const pending = check && results.some(([, r]) => r.status === 'migrated')
    return failed || pending ? 1 : 0
  },
}

function renderReport(
  results: readonly [string, Migration][],
  check: boolean,
  quiet: boolean,
  style: Parameters<Command['run']>[1]['style'],
): string {
  const lines: string[] = []
  const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`
  const counts = { migrated: 0, current: 0, failed: 0 }
  let before = 0
  let after = 0
  for (const [path, r] of results) {
    counts[r.status]++
    if (r.status === 'migrated') {
      before += r.bytesBefore
      after += r.bytesAfter
      const label = check ? style.yellow('would migrate') : style.green('migrated     ')
      lines.push(
        `${label}  ${path}  format ${r.from} → ${CASSETTE_FORMAT_VERSION}: ${bytes(r.bytesBefore)} → ${bytes(r.bytesAfter)}`,
      )
    } else if (r.status === 'failed') {
      lines.push(`${style.red('FAIL         ')}  ${path}  ${r.reason}`)
    } else if (!quiet) {
      lines.push(`${'up to date   '}  ${path}  format ${CASSETTE_FORMAT_VERSION}, ${bytes(r.bytes)}`)
    }
  }
  if (lines.length > 0) lines.push('')
  if (results.length === 0) lines.push('No cassettes found.')
  else {
    const parts = [
      `${counts.migrated} ${check ? 'to migrate' : 'migrated'}${counts.migrated > 0 ? ` (${bytes(before)} → ${bytes(after)})` : ''}`,
      `${counts.current} up to date`,
    ]
    if (counts.failed > 0) parts.push(`${counts.failed} failed`)
    const noun = `cassette${results.length === 1 ? '' : 's'}`
    lines.push(
      `${results.length} ${noun}: ${parts.join(', ')}${check && counts.migrated > 0 ? '; nothing was written' : ''}.`,
    )
  }
  return `${lines.join('\n')}\n`
}
