import type { DecisionRecord } from '@agent-tape/core/internal'
import { countKind, describeHarness as harness, previewJson, summarizeDecision } from '@agent-tape/inspect'
import { describe, expect, it } from 'vitest'
import { createStyle } from '../output/style.js'
import { renderDecision } from './render-timeline.js'

const options = { style: createStyle(false), maxPreview: 60 }
const render = (d: Omit<DecisionRecord, 'seq' | 'ms'>) =>
  renderDecision(summarizeDecision({ seq: 7, ms: 3, ...d } as DecisionRecord), options).join('\n')

describe('renderDecision', () => {
  it('shows a tool error and the lane of the decision', () => {
    expect(
      render({
        key: 'tool:0123456789abcdef',
        kind: 'tool',
        step: 2,
        lane: 'critic',
        in: { name: 'refund', args: [{ paymentId: 'pay_2' }] },
        err: { name: 'PaymentError', message: 'card declined' },
      }),
    ).toBe(`#7  step 2 (lane "critic")  tool "refund"  tool:0123456789abcdef  3 ms
    args      {"paymentId":"pay_2"}
    error     PaymentError: card declined`)
  })

  it('shows an http decision with its status and a shortened body', () => {
    expect(
      render({
        key: 'http:0123456789abcdef',
        kind: 'http',
        step: 1,
        in: { method: 'GET', url: 'https://api.example.com/orders/42' },
        out: {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: { json: { id: 42, items: ['a very long list of items that goes on and on'] } },
        },
      }),
    ).toBe(`#7  step 1  http GET https://api.example.com/orders/42  http:0123456789abcdef  3 ms
    input     {"method":"GET","url":"https://api.example.com/orders/42"}
    status    200 · application/json
    body      {"id":42,"items":["a very long list of items that goes on a…`)
  })
})

describe('timeline pieces', () => {
  it('describes the recorded harness', () => {
    expect(harness(undefined)).toBe('not recorded')
    expect(harness({ git: false, reason: 'git is not installed' })).toBe(
      'not compared (git is not installed)',
    )
    expect(
      harness({
        git: true,
        commit: 'abcdef0123456789',
        paths: ['src/agent'],
        tree: '5d1c2e3f4a5b6c7d',
        dirty: true,
      }),
    ).toBe('tree 5d1c2e3f4a5b6c7d of src/agent at commit abcdef012345 with uncommitted changes')
  })

  it('counts decisions by kind in words', () => {
    expect([countKind('llm', 1), countKind('tool', 3), countKind('search', 2)]).toEqual([
      '1 model request',
      '3 tool calls',
      '2 search decisions',
    ])
  })

  it('cuts long previews with an ellipsis', () => {
    expect(previewJson('x'.repeat(10), 6)).toBe('"xxxx…')
    expect(previewJson({ a: 1 }, Infinity)).toBe('{"a":1}')
  })
})
