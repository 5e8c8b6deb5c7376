import type { DecisionRecord } from './cassette-format.js'
import { createDivergence, type DivergenceContext, type DivergenceError } from './divergence.js'
import { describeEnvChange, hashEnvValue } from './env-hash.js'
import { ConfigError } from './errors.js'
import type { Tape } from './tape.js'

/**
 * `tape.env()`: reads allowlisted environment variables. Each read is a decision whose outcome
 * is the values' hashes, never the values; a replay compares the hashes of now with the
 * recorded ones, and any drift fails the run. Built on the tape's boundary, like any adapter.
 */
export class EnvReads {
  constructor(
    private readonly tape: Pick<Tape, 'begin' | 'reportDivergence' | 'cassettePath' | 'rerecordCommand'>,
    private readonly environment: Record<string, string | undefined>,
    /**
     * The salt of the cassette's env hashes (none in cassettes written before salting), asked for
     * at the first read: a recording makes its salt only when a run reads the environment.
     */
    private readonly saltOf: () => string | undefined,
  ) {}

  read<K extends string>(keys: readonly K[]): Record<K, string | undefined> {
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string' || k === '')) {
      throw new ConfigError({
        what: 'Invalid tape.env() call',
        why: `it takes an array of variable names, got ${JSON.stringify(keys)}`,
        fix: "Call it as tape.env(['AGENT_MODEL', 'FEATURE_FLAGS'])",
      })
    }
    const { environment } = this
    const salt = this.saltOf()
    const sorted = [...new Set(keys)].sort()
    const values = Object.fromEntries(sorted.map((k) => [k, environment[k]])) as Record<K, string | undefined>
    const hashes = Object.fromEntries(sorted.map((k) => [k, hashEnvValue(environment[k], salt)]))
    const decision = this.tape.begin('env', { keys: sorted })
    if (decision.action === 'record') decision.complete({ out: hashes }, 0)
    if (decision.action === 'replay') {
      const drift = envDrift(decision.record, hashes, this.tape)
      if (drift) this.tape.reportDivergence(drift)
    }
    return values
  }
}

/** The divergence between the env hashes an env read recorded and those of now, if any differ. */
export function envDrift(
  record: DecisionRecord,
  now: Record<string, string | null>,
  context: DivergenceContext,
): DivergenceError | undefined {
  const before = (record.out ?? {}) as Record<string, string | null>
  const drift = Object.keys(now).filter((k) => before[k] !== now[k])
  if (drift.length === 0) return undefined
  const lines = drift.map((k) => `  ${k.padEnd(20)} ${describeEnvChange(before[k] ?? null, now[k] ?? null)}`)
  return createDivergence('ERR_TAPE_ENV_DRIFT', {
    what: `Environment drift at step ${record.step}`,
    why: `${drift.length} of ${Object.keys(now).length} environment values read through tape.env() differ from the recording (values are compared by hash)`,
    fix: `Restore the recorded environment, or re-record this test: ${context.rerecordCommand}`,
    details: [`  cassette  ${context.cassettePath}`, '', ...lines],
  })
}
