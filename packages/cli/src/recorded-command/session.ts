import { openProcessSession, type ProcessSessionConfig, type SessionResults } from '@agent-tape/http/process'

/** The variable that names model endpoints for `record` and `replay`, comma-separated, beside `--model-endpoint`. */
export const MODEL_ENDPOINTS_ENV = 'AGENT_TAPE_MODEL_ENDPOINTS'

/** A session folder the command's Node processes report to, removed once read. */
export interface CommandSession {
  readonly dir: string
  /** The command's environment: `env` with the preload in NODE_OPTIONS and the command's place. */
  env(env: Record<string, string | undefined>): Record<string, string | undefined>
  results(): Promise<SessionResults>
  remove(): Promise<void>
}

/** Creates the session of one recorded or replayed command, in the system's temp folder. */
export async function openCommandSession(config: ProcessSessionConfig): Promise<CommandSession> {
  const session = await openProcessSession(config)
  return {
    dir: session.dir,
    env: (env) => ({
      ...env,
      ...session.variables(env.NODE_OPTIONS),
      // npm checks for a newer npm over the network now and then: not part of the agent's run.
      npm_config_update_notifier: 'false',
    }),
    results: () => session.results(),
    remove: () => session.remove(),
  }
}

/** Model endpoints from the flags, then from `AGENT_TAPE_MODEL_ENDPOINTS`, without repeats. */
export function modelEndpointsFrom(
  flags: readonly string[],
  env: Record<string, string | undefined>,
  recorded: readonly string[] = [],
): string[] {
  const fromEnv = (env[MODEL_ENDPOINTS_ENV] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return [...new Set([...recorded, ...flags, ...fromEnv])]
}
