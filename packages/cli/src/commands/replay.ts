import { ALLOW_SECRET_OPTION, HELP_OPTION, usageError } from '../args.js'
import type { Command } from '../command.js'
import { replayCommand } from '../recorded-command/replay.js'
import { resumeCommand } from '../recorded-command/resume.js'
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
      '--from <n> replays the first n decisions of the cassette while the run matches them, and from the first decision after them (or the first that does not match) each process runs live and is recorded: the whole run is written to a new file (--out, default <cassette>.from-<n>.jsonl beside it; the cassette itself is never written), the replayed decisions kept as they were recorded. --model <name> sends every live model request to that model instead (the request keeps its own model in the recording, so the file replays the same command). It records, so it needs the provider keys, and is refused in CI unless --allow-ci.',
      "Exit code: the command's own when the run replayed cleanly (128 + the signal number when a signal ended it), 3 when it diverged, 2 for bad arguments or an unreadable cassette, 127 for a command that is not found. With --from, as agent-tape record: the command's own, or 1 when it exited 0 and nothing was written.",
    ],
    options: {
      mode: { type: 'string', value: '<mode>', description: 'replay (default) or live-tools' },
      from: {
        type: 'string',
        value: '<n>',
        description: 'Replay the first n decisions, then run live and record the whole run to a new file',
      },
      out: {
        type: 'string',
        value: '<file>',
        description: 'With --from: the file to write (default <cassette>.from-<n>.jsonl beside the cassette)',
      },
      model: {
        type: 'string',
        value: '<name>',
        description: 'With --from: the model every live model request is sent to instead of its own',
      },
      'allow-ci': { type: 'boolean', description: 'With --from: record although CI is set' },
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
      'agent-tape replay --from 3 --model "$CANDIDATE_MODEL" runs/issue-412.jsonl',
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
    const from = fromValue(values)
    if (from !== undefined) {
      if (values.mode !== undefined) {
        throw usageError(
          'agent-tape replay',
          '--mode and --from cannot be combined: --from replays the start of the run and records the rest',
          'Leave --mode out with --from',
        )
      }
      return reportCommandRun(io, () =>
        resumeCommand(positionals[0]!, {
          ...commandRunOptions(values, io, 'agent-tape replay'),
          ...(command ? { argv: command } : {}),
          from,
          ...(typeof values.out === 'string' ? { out: values.out } : {}),
          ...(typeof values.model === 'string' ? { liveModel: values.model } : {}),
          allowCi: values['allow-ci'] === true,
        }),
      )
    }
    for (const name of ['out', 'model', 'allow-ci'] as const) {
      if (values[name] !== undefined) {
        throw usageError(
          'agent-tape replay',
          `--${name} goes with --from, which was not given`,
          `Add --from <n> to replay the first n decisions and record the rest, or leave --${name} out`,
        )
      }
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

/** `--from <n>`: a whole number of decisions, 1 or more (the upper bound is the cassette's, checked once it is read). */
function fromValue(values: Record<string, unknown>): number | undefined {
  const value = values.from
  if (value === undefined) return undefined
  const text = String(value)
  const fix = 'Give the number of decisions to replay before the run goes live, e.g. --from 3'
  if (!/^-?\d+$/.test(text.trim())) {
    throw usageError(
      'agent-tape replay',
      `--from takes a whole number of decisions, not ${JSON.stringify(text)}`,
      fix,
    )
  }
  const n = Number(text)
  if (n < 1) {
    throw usageError(
      'agent-tape replay',
      `--from ${n} replays no decision: it counts the decisions replayed before the run goes live, from 1`,
      `${fix}; to record the whole run again, use agent-tape record --force`,
    )
  }
  return n
}
