import { describe, expect, it } from 'vitest'
import { type Alignable, alignDecisions } from './align.js'

const d = (kind: string, step: number, label: string, key = `${kind}:${label}${step}`): Alignable => ({
  kind,
  step,
  label,
  key,
})

describe('alignDecisions', () => {
  it('pairs identical runs one to one', () => {
    const run = [d('llm', 1, 'gpt'), d('tool', 1, 'search'), d('llm', 2, 'gpt')]
    expect(alignDecisions(run, run)).toEqual([
      { a: 0, b: 0 },
      { a: 1, b: 1 },
      { a: 2, b: 2 },
    ])
  })

  it('shows an inserted tool call as one addition, not as everything after it changing', () => {
    const a = [d('llm', 1, 'gpt'), d('tool', 1, 'search'), d('llm', 2, 'gpt')]
    const b = [
      d('llm', 1, 'gpt'),
      d('tool', 1, 'lookup'),
      d('tool', 1, 'search'),
      d('llm', 2, 'gpt', 'changed'),
    ]
    expect(alignDecisions(a, b)).toEqual([{ a: 0, b: 0 }, { b: 1 }, { a: 1, b: 2 }, { a: 2, b: 3 }])
  })

  it('pairs a decision whose key changed by kind, step and label', () => {
    expect(alignDecisions([d('llm', 1, 'gpt', 'llm:1')], [d('llm', 1, 'gpt', 'llm:2')])).toEqual([
      { a: 0, b: 0 },
    ])
  })

  it('never pairs decisions of different kinds or lanes', () => {
    expect(alignDecisions([d('env', 0, 'HOME')], [d('tool', 0, 'HOME')])).toEqual([{ a: 0 }, { b: 0 }])
    expect(alignDecisions([{ ...d('llm', 1, 'gpt'), lane: 'critic' }], [d('llm', 1, 'gpt')])).toEqual([
      { a: 0 },
      { b: 0 },
    ])
  })
})
