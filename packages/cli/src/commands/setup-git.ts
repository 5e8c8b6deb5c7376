import { DEFAULT_CASSETTE_DIR } from '@agent-tape/runner-kit'
import { HELP_OPTION, usageError } from '../args.js'
import type { Command } from '../command.js'
import { setUpGit } from '../setup-git/setup-git.js'
import { strings } from './option-values.js'

export const setupGitCli: Command = {
  spec: {
    name: 'setup-git',
    args: '',
    summary: 'Have git diff, git log -p and git show print cassettes as transcripts (agent-tape textconv).',
    description: [
      `Adds to the .gitattributes at the top of the checkout a line naming the agent-tape diff driver for the cassettes of every cassette folder (${DEFAULT_CASSETTE_DIR}, at any depth; --cassette-dir names others) and for each other folder where git has a cassette (recorded by agent-tape record, or captured in a server), and sets the driver in the checkout's own git config: diff.agent-tape.textconv (the project's node_modules/.bin/agent-tape when there is one, run from the top of the checkout; else npx --no-install agent-tape), diff.agent-tape.cachetextconv (git keeps each transcript) and diff.agent-tape.xfuncname (hunk headers name the step).`,
      "Only what is missing is written: running it again changes nothing and says so. Commit .gitattributes; the config is the clone's own, so run it once in each clone. git diff --no-textconv shows the JSON again.",
    ],
    options: {
      'cassette-dir': {
        type: 'string',
        multiple: true,
        value: '<name>',
        description: `A folder name cassettes are kept in, as the runner's cassetteDir (default ${DEFAULT_CASSETTE_DIR}; repeatable)`,
      },
      command: {
        type: 'string',
        value: '<command>',
        description:
          "The textconv command git runs with the file appended (default: the project's bin, else npx)",
      },
      help: HELP_OPTION,
    },
    positionals: { min: 0, max: 0 },
    examples: ['agent-tape setup-git', 'agent-tape setup-git --cassette-dir recordings'],
  },
  async run({ values }, io) {
    const dirs = strings(values['cassette-dir']).map((dir) =>
      dir.replace(/\\/g, '/').replace(/^\.\/|\/+$/g, ''),
    )
    for (const dir of dirs) {
      if (dir === '' || dir.startsWith('/') || /^[A-Za-z]:/.test(dir) || dir.split('/').includes('..'))
        throw usageError(
          'agent-tape setup-git',
          `--cassette-dir ${JSON.stringify(dir)} is not a folder name below the test files`,
          "Give the cassetteDir of the runner options, relative to each test file's folder (recordings, or fixtures/cassettes)",
        )
    }
    const command = typeof values.command === 'string' ? values.command : undefined
    const setup = await setUpGit(io.cwd, {
      cassetteDirs: dirs.length > 0 ? dirs : [DEFAULT_CASSETTE_DIR],
      ...(command === undefined ? {} : { command }),
    })
    if (setup.attributes.length === 0 && setup.config.length === 0) {
      io.stdout(
        `Already set up in ${setup.top}: .gitattributes and the git config name the agent-tape diff driver (nothing changed).\n`,
      )
      return 0
    }
    const lines = [
      ...setup.attributes.map((line) => `.gitattributes  + ${line}`),
      ...setup.config.map(([name, value]) => `git config      ${name} ${value}`),
      '',
      'git diff, git log -p and git show now print cassettes as transcripts (git diff --no-textconv: the JSON).',
    ]
    if (setup.attributes.length > 0)
      lines.push('Commit .gitattributes; in another clone, run agent-tape setup-git again.')
    io.stdout(`${lines.join('\n')}\n`)
    return 0
  },
}
