import { describe, expect, it } from 'vitest'
import { resolveOptions } from './options.js'

describe('resolveOptions (Jest)', () => {
  it('refuses a misspelt option with the closest name, instead of ignoring it', () => {
    expect(() => resolveOptions({ modelEndpoint: ['http://127.0.0.1:4010'] })).toThrow(
      'Unknown option "modelEndpoint" (did you mean "modelEndpoints"?) in testEnvironmentOptions.agentTape of the Jest config',
    )
  })

  it('takes interception: msw, defaults to agent-tape, and refuses any other value', () => {
    expect(resolveOptions({ interception: 'msw' }).interception).toBe('msw')
    expect(resolveOptions({}).interception).toBe('agent-tape')
    expect(() => resolveOptions({ interception: 'nock' })).toThrow(
      /Invalid agent-tape option interception in the Jest config[\s\S]*Write interception: 'msw', or leave it out/,
    )
  })
})
