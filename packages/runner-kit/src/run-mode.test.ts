import { isConfigError } from '@agent-tape/core/runtime'
import { describe, expect, it } from 'vitest'
import { RESUME_FLAG, UPDATE_FLAG } from './rerecord-command.js'
import { applyModeSwitch, runModeOf } from './run-mode.js'

describe('the runner switches that choose a mode', () => {
  it('set update or resume, naming the switch for messages', () => {
    for (const [flag, mode] of [
      [UPDATE_FLAG, 'update'],
      [RESUME_FLAG, 'resume'],
    ] as const) {
      const env: Record<string, string | undefined> = {}
      applyModeSwitch(['vitest', 'run', flag], env)
      expect(env).toEqual({ AGENT_TAPE_MODE: mode, AGENT_TAPE_MODE_FROM: flag })
      expect(runModeOf({ allowRecordingInCI: false }, env)).toBe(mode)
    }
  })

  it('leave the environment alone without a switch', () => {
    const env = { AGENT_TAPE_MODE: 'live' }
    applyModeSwitch(['vitest', 'run'], env)
    expect(env).toEqual({ AGENT_TAPE_MODE: 'live' })
  })

  it('refuse both at once, and resume in CI by its switch', () => {
    const both = (() => {
      try {
        applyModeSwitch([UPDATE_FLAG, RESUME_FLAG], {})
      } catch (error) {
        return error
      }
    })()
    expect(isConfigError(both) && both.message).toBe(
      '[agent-tape] Both --update-cassettes and --resume-cassettes were given: --update-cassettes re-records every tape from its first decision, and --resume-cassettes replays each tape while it matches its cassette and records from its first miss. Give one of them.',
    )
    const env: Record<string, string | undefined> = { CI: 'true' }
    applyModeSwitch([RESUME_FLAG], env)
    expect(() => runModeOf({ allowRecordingInCI: false }, env)).toThrow(
      'Refusing to re-record cassettes in CI: mode "resume" was requested (by --resume-cassettes) while CI is set',
    )
  })
})
