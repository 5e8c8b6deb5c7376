import { ALLOW_SECRET_OPTION, HELP_OPTION, usageError } from '../args.js'
import type { Command } from '../command.js'
import { replayCommand } from '../recorded-command/replay.js'
import { MODEL_ENDPOINTS_ENV } from '../recorded-command/session.js'
import { commandRunOptions, GATEWAY_FLAGS, reportCommandRun } from './option-values.js'

export const replayCli: Command = {
  spec: {
    name: 'replay',
    args: '<cassette> [-- <command> [args…]]',
    summary:
      'Run a recorded command again with every decision answered from its cassette: no network, no API key.',
    description: [
      "Runs the command the cassette recorded (or the one after --) in its recorded folder under the project root, with the boundary in each Node process it starts replaying that process's decisions from the cassette. A recorded command line's placeholders ([REDACTED:$NAME], where the recording kept a credential out) are filled from the variables they name; while one is unset, nothing runs. Nothing reaches the network, and provider key variables that are unset get a placeholder. The first decision the run asks for that was never recorded fails the replay with the miss report (the changed input as a diff, and the view command that opens the run next to its recording); so do recorded decisions left unused, environment drift and processes that could not be accounted for.",
      `--mode live-tools replays the model and runs MCP tool calls for real, comparing each result with its recording. Model endpoints beyond the known provider hosts: the recorded ones, --model-endpoint and ${MODEL_ENDPOINTS_ENV}.`,
      "Exit code: the command's own when the run replayed cleanly (128 + the signal number when a signal ended it), 3 when it diverged, 2 for bad arguments or an unreadable cassette, 127 for a command that is not found.",
    ],
    options: {
      mode: { type: 'string', value: '<mode>', description: 'replay (default) or live-tools' },
      'model-endpoint': {
        type: 'string',
        multiple: true,
        value: '<url>',
        description:
          'Base URL of a model server beyond the known provider hosts and the recorded ones (repeatable)',
      },
      'allow-host': {
        type: 'string',
        multiple: true,
        value: '<host>',
        description: 'A host the command may reach for real (repeatable)',
      },
      'allow-secret': ALLOW_SECRET_OPTION,
      ...GATEWAY_FLAGS,
      help: HELP_OPTION,
    },
    positionals: { min: 1, max: 1 },
    command: '<command> [args…]',
    examples: [
      'agent-tape replay runs/issue-412.jsonl',
      'agent-tape replay --mode live-tools runs/issue-412.jsonl',
      'agent-tape replay runs/issue-412.jsonl -- node dist/agent.js --task "$(cat tasks/issue-412.txt)"',
    ],
  },
  async run({ values, positionals, command }, io) {
    const mode = values.mode === undefined ? 'replay' : values.mode
    if (mode !== 'replay' && mode !== 'live-tools') {
      throw usageError(
        'agent-tape replay',
        `unknown mode ${JSON.stringify(mode)}; the modes are replay and live-tools`,
      )
    }
    if (command !== undefined && command.length === 0) {
      throw usageError(
        'agent-tape replay',
        'nothing follows --',
        'Name the command after --, or leave -- out to run the recorded one',
      )
    }
    return reportCommandRun(io, () =>
      replayCommand(positionals[0]!, {
        ...commandRunOptions(values, io, 'agent-tape replay'),
        ...(command ? { argv: command } : {}),
        mode,
      }),
    )
  },
}
