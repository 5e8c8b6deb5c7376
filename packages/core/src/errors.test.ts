import { expect, it } from 'vitest'
import { DivergenceError, ReplayMiss } from './divergence.js'
import {
  AgentTapeError,
  CassetteCorruptError,
  ConfigError,
  isAgentTapeError,
  isConfigError,
  SecretLeakError,
} from './errors.js'

const MISS = {
  kind: 'llm',
  step: 1,
  key: 'llm:0123456789abcdef',
  label: 'model request',
  decisionIndex: 1,
  total: 0,
  replayedBefore: 0,
  changes: [],
}
const PARTS = { what: 'Something failed', why: 'a reason', fix: 'Do this' }

it('knows every error class of core by its code', () => {
  const errors = [
    new AgentTapeError('ERR_TAPE_USAGE', PARTS),
    new CassetteCorruptError(PARTS, 'c.jsonl', 1),
    new SecretLeakError(PARTS, []),
    new ConfigError(PARTS),
    new ReplayMiss(MISS, { cassettePath: 'c.jsonl', rerecordCommand: 'update' }),
    new DivergenceError('ERR_TAPE_UNUSED', PARTS),
  ]
  expect(errors.map(isAgentTapeError)).toEqual(errors.map(() => true))
  expect(errors.map((e) => e.name)).toEqual([
    'AgentTapeError',
    'CassetteCorruptError',
    'SecretLeakError',
    'ConfigError',
    'ReplayMiss',
    'DivergenceError',
  ])
})

it('knows an agent-tape error from another realm or package by its code alone, whatever its class name', () => {
  // What a copy of an error looks like after crossing a realm, or an error of a package with its own class.
  expect(isAgentTapeError({ name: 'ReplayMiss', code: 'ERR_TAPE_MISS', message: 'm' })).toBe(true)
  expect(isAgentTapeError({ name: 'BudgetError', code: 'ERR_TAPE_BUDGET', message: 'm' })).toBe(true)
})

it("does not take Node's own coded errors, or errors without a code, for agent-tape's", () => {
  expect(isAgentTapeError(Object.assign(new TypeError('bad'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBe(false)
  expect(isAgentTapeError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(false)
  expect(isAgentTapeError({ name: 'AgentTapeError', message: 'no code' })).toBe(false)
  expect(isAgentTapeError({ code: 'ERR_TAPE_MISS' })).toBe(false)
  expect(isAgentTapeError('ERR_TAPE_MISS')).toBe(false)
  expect(isAgentTapeError(null)).toBe(false)
})

it('keeps the guards of each class checking its literal name', () => {
  expect(isConfigError(new ConfigError(PARTS))).toBe(true)
  expect(isConfigError({ name: 'AgentTapeError', code: 'ERR_TAPE_CONFIG' })).toBe(false)
})
