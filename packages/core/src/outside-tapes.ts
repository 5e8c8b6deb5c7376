import { AgentTapeError } from './errors.js'
import { runMode } from './tape-context.js'

/**
 * The refusal of an MCP client connecting outside every tape (in `beforeAll`, at import) in a run
 * whose tapes may replay: a replay never starts an MCP server's process nor opens its connection,
 * and a handshake made outside every tape belongs to no cassette.
 */
export function mcpOutsideTapeError(server: string): AgentTapeError {
  const mode = runMode()
  const replays = mode === 'auto' ? 'mode "auto", which replays every cassette that exists' : `mode "${mode}"`
  return new AgentTapeError('ERR_TAPE_USAGE', {
    what: `Cannot connect to MCP server ${server} outside a tape`,
    why: `the client connected before any tape began (in beforeAll, or as a module loaded), and this run's tapes replay (${replays}); a replay never starts an MCP server's process nor opens its connection, and a handshake made outside every tape belongs to no cassette`,
    fix: "Connect the client inside the tape that uses it (in the test body, or in a helper the body awaits): the handshake is then recorded and replayed with the calls. To connect once for a file or a describe block, connect in a setup tape: beforeAll.tape(() => client.connect(transport)) records the handshake in a cassette of its own, and each test's tape uses the connected client",
  })
}
