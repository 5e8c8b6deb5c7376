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
      /Invalid option interception in testEnvironmentOptions\.agentTape of the Jest config[\s\S]*Write interception: 'msw', or leave it out/,
    )
  })

  it('reads strings in allowSecrets as RegExp sources, and names a RegExp that arrived as JSON', () => {
    expect(resolveOptions({ allowSecrets: ['sk-test-.*'] }).allowSecrets).toEqual([
      { source: 'sk-test-.*', flags: '' },
    ])
    expect(() => resolveOptions({ redactors: [{ name: 'email', pattern: {} }] })).toThrow(
      /Invalid option redactors\[0\]\.pattern in testEnvironmentOptions\.agentTape of the Jest config: it must be a RegExp or a RegExp source string, got \{\} \(a RegExp sent as JSON arrives as \{\}\)/,
    )
  })

  it('takes viewDir as a folder path, and refuses anything else', () => {
    expect(resolveOptions({ viewDir: 'agent-tape-views' }).viewDir).toBe('agent-tape-views')
    expect(resolveOptions({})).not.toHaveProperty('viewDir')
    expect(() => resolveOptions({ viewDir: true })).toThrow(
      'Invalid option viewDir in testEnvironmentOptions.agentTape of the Jest config: it must be a folder path, got true. Write viewDir: "agent-tape-views".',
    )
  })
})
