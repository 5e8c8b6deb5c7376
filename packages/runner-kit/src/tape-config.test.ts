import { describe, expect, it } from 'vitest'
import { type ConfigSource, resolveTapeConfig } from './tape-config.js'

const SOURCE: ConfigSource = {
  where: 'the agentTape() options',
  secretStrings: 'literal',
  patternFix: 'Write a string or a RegExp',
}

describe('budget, ignore and failOnObsolete options', () => {
  it('resolve to data a worker gets', () => {
    const config = resolveTapeConfig(
      {
        budget: { steps: 8, tokens: { input: 20_000, output: 2_000 }, usd: 0.05 },
        ignore: ['body.metadata.request_id', { path: 'args.key', kinds: ['tool'] }],
        failOnObsolete: true,
      },
      SOURCE,
    )
    expect(JSON.parse(JSON.stringify(config))).toEqual(config)
    expect(config.budget).toEqual({ steps: 8, tokens: { input: 20_000, output: 2_000 }, usd: 0.05 })
    expect(config.failOnObsolete).toBe(true)
    expect(config.ignore).toEqual(['body.metadata.request_id', { path: 'args.key', kinds: ['tool'] }])
    const plain = resolveTapeConfig({}, SOURCE)
    expect(plain.failOnObsolete).toBe(false)
    expect(plain.ignore).toEqual([])
    expect(plain).not.toHaveProperty('budget')
  })

  it.each([
    [{ budget: 5 }, 'Invalid option budget in the agentTape() options: it must be an object, got 5.'],
    [
      { budget: { steps: -1 } },
      'Invalid option budget.steps in the agentTape() options: it must be a number of 0 or more, got -1.',
    ],
    [
      { budget: { dollars: 1 } },
      'Invalid option budget.dollars in the agentTape() options: it must be one of steps, tokens, usd.',
    ],
    [
      { budget: { tokens: { cached: 1 } } },
      'Invalid option budget.tokens.cached in the agentTape() options: it must be one of input, output.',
    ],
    [
      { ignore: ['body..id'] },
      'Invalid ignore rule #1 "body..id" in the agentTape() options: a path segment is empty',
    ],
    [
      { ignore: 'body.user' },
      'Invalid option ignore in the agentTape() options: it must be an array, got "body.user".',
    ],
  ])('refuses %j, saying where', (options, message) => {
    expect(() => resolveTapeConfig(options, SOURCE)).toThrow(message)
  })
})
