/** Version of the agent-tape packages, written in cassette headers. */
export const AGENT_TAPE_VERSION = '0.1.0'
