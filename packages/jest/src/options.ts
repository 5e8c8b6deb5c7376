import { type RunnerOptions, resolveTapeConfig, type TapeConfig } from '@agent-tape/runner-kit'

/**
 * Options of the agent-tape Jest environment, under `testEnvironmentOptions.agentTape`: the same
 * as the Vitest plugin's. Jest sends its config to its workers as JSON, so patterns are written
 * as strings (RegExp sources; a RegExp arrives as `{}` unless Jest runs in band), a string in
 * `allowSecrets` is a RegExp source too, and function rules go in a setup file through
 * `configureTape()`.
 *
 * @example
 * // jest.config.js
 * module.exports = {
 *   preset: '@agent-tape/jest',
 *   testEnvironmentOptions: { agentTape: { harness: ['src/agent'] } },
 * }
 */
export type AgentTapeJestOptions = RunnerOptions

/** Reads `testEnvironmentOptions.agentTape`: checked, defaults applied, patterns as data. */
export function resolveOptions(raw: unknown): TapeConfig {
  return resolveTapeConfig(raw, {
    where: 'testEnvironmentOptions.agentTape of the Jest config',
    secretStrings: 'regexp',
    patternFix:
      'Write patterns as strings (e.g. { name: "email", pattern: "[\\\\w.+-]+@[\\\\w.-]+" }), or register RegExp and function rules with configureTape() in a setup file',
  })
}
