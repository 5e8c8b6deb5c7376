import { describe, expect, it } from 'vitest'
import { resolveMode, setModeFromFlag } from './modes.js'

describe('resolveMode', () => {
  it('is auto locally and replay when CI is set', () => {
    expect(resolveMode({ env: {} })).toEqual({ mode: 'auto', source: 'default', ci: false })
    expect(resolveMode({ env: { CI: 'true' } })).toEqual({ mode: 'replay', source: 'ci', ci: true })
    expect(resolveMode({ env: { CI: 'false' } }).mode).toBe('auto')
    expect(resolveMode({ env: { CI: '0' } }).mode).toBe('auto')
  })

  it('lets AGENT_TAPE_MODE win over the configured option', () => {
    expect(resolveMode({ mode: 'replay', env: { AGENT_TAPE_MODE: 'update' } })).toEqual({
      mode: 'update',
      source: 'env',
      ci: false,
    })
    expect(resolveMode({ mode: 'live', env: {} }).mode).toBe('live')
  })

  it('never records in CI: auto degrades to replay and update is refused', () => {
    expect(resolveMode({ mode: 'auto', env: { CI: '1' } }).mode).toBe('replay')
    expect(() => resolveMode({ env: { CI: '1', AGENT_TAPE_MODE: 'update' } })).toThrow(
      '[agent-tape] Refusing to re-record cassettes in CI: mode "update" was requested (by AGENT_TAPE_MODE) while CI is set, and CI runs must only replay. Re-record locally and commit the cassettes, or set AGENT_TAPE_ALLOW_CI_RECORDING=1 for a job that is meant to record.',
    )
    expect(
      resolveMode({ env: { CI: '1', AGENT_TAPE_MODE: 'update', AGENT_TAPE_ALLOW_CI_RECORDING: '1' } }).mode,
    ).toBe('update')
    expect(resolveMode({ env: { CI: '1' }, mode: 'live' }).mode).toBe('live')
  })

  it('names the switch the user typed when a runner set the mode from its command line', () => {
    const env: Record<string, string | undefined> = { CI: '1' }
    setModeFromFlag(env, 'update', '--update-cassettes')
    expect(env).toEqual({ CI: '1', AGENT_TAPE_MODE: 'update', AGENT_TAPE_MODE_FROM: '--update-cassettes' })
    expect(() => resolveMode({ env })).toThrow(
      'mode "update" was requested (by --update-cassettes) while CI is set',
    )
  })

  it('rejects unknown names from the environment, listing the valid ones', () => {
    expect(() => resolveMode({ env: { AGENT_TAPE_MODE: 'Replay' } })).toThrow(
      '[agent-tape] Unknown agent-tape mode "Replay" (from AGENT_TAPE_MODE): valid modes are "replay", "auto", "update", "live", "live-tools", "resume". Use one of them, or leave the mode unset for "auto" locally and "replay" in CI.',
    )
  })
})
