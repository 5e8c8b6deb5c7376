import { describe, expect, it } from 'vitest'
import { isConfigError } from './errors.js'
import { assertKnownOptions } from './known-options.js'

const KNOWN = ['cassetteDir', 'modelEndpoints', 'allowHosts', 'mode', 'timing']

function messageOf(options: object): string {
  try {
    assertKnownOptions(options, KNOWN, 'the agentTape() options')
  } catch (error) {
    expect(isConfigError(error)).toBe(true)
    return (error as Error).message
  }
  throw new Error('no error was thrown')
}

describe('assertKnownOptions', () => {
  it('accepts known options, and an empty object', () => {
    expect(() => assertKnownOptions({ mode: 'replay', timing: 'instant' }, KNOWN, 'x')).not.toThrow()
    expect(() => assertKnownOptions({}, KNOWN, 'x')).not.toThrow()
  })

  it.each([
    ['modelEndpoint', 'modelEndpoints'],
    ['model_endpoints', 'modelEndpoints'],
    ['allowedHosts', 'allowHosts'],
    ['cassettedir', 'cassetteDir'],
    ['modes', 'mode'],
    ['timming', 'timing'],
  ])('names %s and suggests %s', (typo, near) => {
    const message = messageOf({ [typo]: 1 })
    expect(message).toContain(`Unknown option "${typo}" (did you mean "${near}"?) in the agentTape() options`)
    expect(message).toContain('Use one of: cassetteDir, modelEndpoints, allowHosts, mode, timing')
  })

  it('suggests nothing for a name far from every option, and lists every unknown name at once', () => {
    const message = messageOf({ interceptor: 'msw', mode: 'auto', x: 1 })
    expect(message).toContain('Unknown options "interceptor", "x" in the agentTape() options')
    expect(message).not.toContain('did you mean')
  })
})
