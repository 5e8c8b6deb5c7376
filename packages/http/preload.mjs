// `NODE_OPTIONS=--import=<this file's URL>`: gives a Node process the boundary of the session its
// environment names (`agent-tape record` and `replay` set it), before the process's own code
// runs; without a session it loads nothing more. An ES module of its own, outside the dual build,
// for its top-level await: the process's code must not start before its tape is open.
if (process.env.AGENT_TAPE_SESSION) {
  const { startProcessBoundary } = await import('./dist/esm/process/process-boundary.js')
  await startProcessBoundary()
}
