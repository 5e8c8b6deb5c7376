import { readdir, rm, rmdir, stat } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import { HELP_OPTION, usageError } from '../args.js'
import { displayPath } from '../cassette-files.js'
import type { Command } from '../command.js'
import { findObsoleteFolders, obsoleteReason } from '../prune/find-obsolete.js'

export const pruneCli: Command = {
  spec: {
    name: 'prune',
    args: '[paths…]',
    summary: 'Delete cassettes whose tests no longer exist (--dry-run only lists them).',
    description: [
      'Looks in every __cassettes__ folder under the paths (default: the current folder). The cassettes in __cassettes__/<test file>/ are obsolete when that test file is gone, or when the test file no longer declares a tape of that name with a string literal: it.tape(\'<name>\', …) or test.tape("<name>", …), modifiers such as .skip, .only and .concurrent included.',
      'When a test file names its tapes dynamically (a variable or a template literal with placeholders as the name, .each or .for tables), which cassettes it uses cannot be told from its source: the folder is reported as "cannot tell" and nothing in it is deleted.',
    ],
    options: {
      'dry-run': {
        type: 'boolean',
        short: 'n',
        description: 'List obsolete cassettes without deleting them',
      },
      json: { type: 'boolean', description: 'Print the findings as JSON' },
      help: HELP_OPTION,
    },
    positionals: { min: 0, max: Infinity },
    examples: ['agent-tape prune --dry-run', 'agent-tape prune test/'],
  },
  async run({ values, positionals }, io) {
    const dirs: string[] = []
    for (const path of positionals.length > 0 ? positionals : ['.']) {
      const full = resolve(io.cwd, path)
      const info = await stat(full).catch(() => undefined)
      if (!info?.isDirectory())
        throw usageError(
          'agent-tape prune',
          `${path} is not a folder`,
          'Pass the folders to search for __cassettes__',
        )
      dirs.push(full)
    }
    const dryRun = values['dry-run'] === true
    const folders = await findObsoleteFolders(dirs)
    const show = (path: string) => displayPath(path, io.cwd)
    const removed: string[] = []
    if (!dryRun) {
      for (const folder of folders) {
        for (const { file } of folder.obsolete) {
          await rm(file)
          removed.push(show(file))
          // A describe block's folder left empty goes too.
          for (let dir = dirname(file); dir.startsWith(`${folder.folder}${sep}`); dir = dirname(dir)) {
            if ((await readdir(dir).catch(() => ['?'])).length > 0) break
            await rmdir(dir)
          }
        }
        if (!folder.testFileExists) await removeIfEmpty(folder.folder)
      }
    }
    const obsolete = folders.flatMap((f) => f.obsolete)
    if (values.json) {
      const report = folders.map((f) => ({
        folder: show(f.folder),
        testFile: show(f.testFile),
        testFileExists: f.testFileExists,
        obsolete: f.obsolete.map((o) => show(o.file)),
        ...(f.cannotTell ? { cannotTell: f.cannotTell } : {}),
      }))
      io.stdout(`${JSON.stringify({ dryRun, folders: report, removed }, null, 2)}\n`)
      return 0
    }
    const { style } = io
    const lines: string[] = []
    for (const f of folders) {
      for (const o of f.obsolete) {
        lines.push(`${style.yellow('obsolete   ')} ${show(o.file)}  (${obsoleteReason(f, o, show)})`)
      }
      if (f.cannotTell) {
        const { line, reason, kept } = f.cannotTell
        lines.push(
          `${style.cyan('cannot tell')} ${show(f.folder)}/  (${show(f.testFile)}:${line}: ${reason}; kept ${kept} cassette${kept === 1 ? '' : 's'})`,
        )
      }
    }
    if (lines.length > 0) lines.push('')
    const n = obsolete.length
    const noun = `obsolete cassette${n === 1 ? '' : 's'}`
    if (n === 0) lines.push('No obsolete cassettes.')
    else if (dryRun) lines.push(`Would delete ${n} ${noun} (dry run: nothing was deleted).`)
    else lines.push(`Deleted ${n} ${noun}.`)
    io.stdout(`${lines.join('\n')}\n`)
    return 0
  },
}

/** Removes a cassette folder left empty, and its `__cassettes__` parent when that is empty too. */
async function removeIfEmpty(folder: string): Promise<void> {
  for (const dir of [folder, join(folder, '..')]) {
    const entries = await readdir(dir).catch(() => ['?'])
    if (entries.length > 0) return
    await rmdir(dir)
  }
}
