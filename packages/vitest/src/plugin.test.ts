import { describe, expect, it } from 'vitest'
import { agentTape } from './plugin.js'

describe('agentTape()', () => {
  it('refuses a misspelt option with the closest name when the config loads', () => {
    expect(() => agentTape({ allowedHosts: ['db.internal'] } as never)).toThrow(
      'Unknown option "allowedHosts" (did you mean "allowHosts"?) in the agentTape() options',
    )
  })

  it('refuses an interception it does not know', () => {
    expect(() => agentTape({ interception: 'nock' } as never)).toThrow(
      'Invalid option interception in the agentTape() options: it must be "agent-tape"',
    )
    expect(agentTape({ interception: 'msw' }).name).toBe('agent-tape')
  })

  it('accepts its own summary switch beside the shared options', () => {
    expect(agentTape({ summary: false, harness: ['src/agent'] }).name).toBe('agent-tape')
  })
})
