import { ALLOW_SECRET_OPTION, HELP_OPTION, usageError } from '../args.js'
import type { Command } from '../command.js'
import { recordCommand } from '../recorded-command/record.js'
import { MODEL_ENDPOINTS_ENV } from '../recorded-command/session.js'
import { commandRunOptions, GATEWAY_FLAGS, reportCommandRun, strings } from './option-values.js'

export const recordCliSpec: Command['spec'] = {
  name: 'record',
  args: '<cassette> -- <command> [args…]',
  summary:
    'Run a command with every Node process it starts recorded into one cassette, to replay it offline.',
  description: [
    'Runs the command with the boundary preloaded in each Node process it starts (NODE_OPTIONS=--import, so node, tsx, npm run, npx and their child processes are reached) and records their model requests, MCP calls, other HTTP requests and the environment variables named with --env into one cassette. Each process makes its decisions in a lane of its own, named by its place in the process tree, the same on every run. The header keeps the command line (each credential in it kept out as a placeholder [REDACTED:$NAME] that a replay fills from the variable NAME: the one whose value it was, else AGENT_TAPE_ARG_<index>), its folder relative to the project root, the git harness, the exit code and the model endpoints.',
    `The cassette is written once the command ends, through a temporary file renamed into place, and only when a decision was recorded. A command interrupted by SIGINT, SIGTERM or SIGHUP (passed on to it) keeps the decisions that had completed. A missing folder is created when the cassette is written (none is left behind when nothing is); an existing cassette is refused without --force, and so is a path under a file. Refused when CI is set, unless --allow-ci (or AGENT_TAPE_ALLOW_CI_RECORDING=1). Model endpoints beyond the known provider hosts come from --model-endpoint and ${MODEL_ENDPOINTS_ENV} (comma-separated).`,
    "Exit code: the command's own once the cassette is written (128 + the signal number when a signal ended it); when nothing was written, the command's own if not 0, else 1; 2 for bad arguments, 127 for a command that is not found.",
  ],
  options: {
    force: { type: 'boolean', short: 'f', description: 'Replace an existing cassette' },
    'model-endpoint': {
      type: 'string',
      multiple: true,
      value: '<url>',
      description: 'Base URL of a model server beyond the known provider hosts (repeatable)',
    },
    env: {
      type: 'string',
      multiple: true,
      value: '<name>',
      description:
        'An environment variable the run depends on: its value is recorded as a salted hash and compared on replay (repeatable)',
    },
    harness: {
      type: 'string',
      multiple: true,
      value: '<path>',
      description:
        "A path whose git tree identifies the agent's code, relative to the project root (repeatable)",
    },
    'allow-host': {
      type: 'string',
      multiple: true,
      value: '<host>',
      description: 'A host the command may reach for real, neither recorded nor blocked (repeatable)',
    },
    'allow-secret': ALLOW_SECRET_OPTION,
    'allow-ci': { type: 'boolean', description: 'Record although CI is set' },
    ...GATEWAY_FLAGS,
    help: HELP_OPTION,
  },
  positionals: { min: 1, max: 1 },
  command: '<command> [args…]',
  examples: [
    'agent-tape record runs/issue-412.jsonl -- node dist/agent.js --task "$(cat tasks/issue-412.txt)"',
    'agent-tape record --model-endpoint http://127.0.0.1:11434/v1 runs/local.jsonl -- npx tsx src/agent.ts',
    'agent-tape record --force --env AGENT_MODEL runs/issue-412.jsonl -- npm run agent',
  ],
}

export const recordCli: Command = {
  spec: recordCliSpec,
  async run({ values, positionals, command }, io) {
    if (!command?.length) {
      throw usageError(
        'agent-tape record',
        'no command to record',
        'Name it after --: agent-tape record runs/issue-412.jsonl -- node dist/agent.js',
      )
    }
    return reportCommandRun(io, () =>
      recordCommand(positionals[0]!, command, {
        ...commandRunOptions(values, io, 'agent-tape record'),
        force: values.force === true,
        envKeys: strings(values.env),
        harness: strings(values.harness),
        allowCi: values['allow-ci'] === true,
      }),
    )
  },
}
