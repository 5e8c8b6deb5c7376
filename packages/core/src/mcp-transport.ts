import type { RecordedError } from './cassette-format.js'
import { AgentTapeError } from './errors.js'
import { type McpMessage, mcpInput, recordedMcpError } from './mcp-messages.js'
import { mcpOutsideTapeError } from './outside-tapes.js'
import type { Tape } from './tape.js'
import { currentTape, replaysOutsideTapes, runInsideDecision } from './tape-context.js'
import { answersFromCassette, tapeInternals } from './tape-internals.js'
import type { BegunDecision } from './tape-options.js'

/**
 * The transport interface of `@modelcontextprotocol/sdk` (its `Transport`), as far as the tape
 * uses it: stdio, streamable HTTP and in-memory transports all have this shape.
 */
export interface McpTransport {
  start(): Promise<void>
  // biome-ignore lint/suspicious/noExplicitAny: transports type their messages each their own way (some take batches)
  send(message: any, options?: any): Promise<void>
  close(): Promise<void>
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's callback is generic over its message types
  onmessage?: ((message: any, extra?: any) => void) | undefined
  sessionId?: string | undefined
  setProtocolVersion?: ((version: string) => void) | undefined
}

export interface TapeMcpOptions {
  /** The server's name in keys and reports, for agents that talk to several (default `mcp`). */
  server?: string
}

interface Pending {
  method: string
  /** Recording: the decision to complete with the response. */
  begun?: Extract<BegunDecision, { action: 'record' }>
  /** `live-tools`: the recorded decision the live response is compared with. */
  recorded?: Extract<BegunDecision, { action: 'replay' }>
  tape: Tape
  started: number
}

/**
 * Tapes an MCP client's transport: every request the client sends (`initialize`, `tools/list`,
 * `tools/call`, `resources/read`, `prompts/get`, …) is a decision of kind `mcp`, keyed by the
 * server name, the method and the params (not the JSON-RPC id, not the session). While
 * recording, messages go to the real transport and the responses are recorded. In replay the
 * real transport is never started (no child process, no connection) and each response comes from
 * the cassette. In `live-tools` mode the server runs, and each `tools/call` result is compared
 * with the recording (a difference fails the test with a drift report). Connect the client
 * inside the tape that uses it: in a test run whose tapes replay, connecting outside every tape
 * (in `beforeAll`) is refused, as it would start the server for a replay.
 *
 * @example
 * const transport = tapeMcpTransport(new StdioClientTransport({ command: 'node', args: ['server.js'] }))
 * await client.connect(transport)
 */
export function tapeMcpTransport<T extends McpTransport>(inner: T, options: TapeMcpOptions = {}): T {
  const server = options.server ?? 'mcp'
  const pending = new Map<string | number, Pending>()
  let virtual = false
  let started = false
  /**
   * What the client sent while the transport was connected virtually (a replayed setup tape's
   * `initialize` and `notifications/initialized`): sent again to the server, for real, when a
   * later tape has to reach it (a test that records), so that it finds a session.
   */
  const handshake: McpMessage[] = []
  let live: Promise<void> | undefined
  /** The tape the transport started in, virtually: the setup tape whose handshake is kept. */
  let connectedBy: Tape | undefined
  const outer: McpTransport = {
    async start() {
      const tape = currentTape()
      // Outside every tape, nothing says which tape the handshake belongs to: in a run whose
      // tapes replay, starting the server would start it for a replay.
      if (!tape && replaysOutsideTapes()) throw mcpOutsideTapeError(JSON.stringify(server))
      // Replay answers from the cassette: the server is never started.
      virtual = tape !== undefined && answersFromCassette(tape)
      if (virtual) {
        connectedBy = tape
        return
      }
      inner.onmessage = (message: McpMessage, extra?: unknown) => void deliver(message, extra)
      inner.onclose = () => outer.onclose?.()
      inner.onerror = (error) => outer.onerror?.(error)
      started = true
      // The transport's own traffic (HTTP requests, a child process) is these decisions' outcome.
      await runInsideDecision(() => inner.start())
    },
    async send(message: McpMessage, sendOptions?: unknown) {
      const tape = currentTape()
      const isRequest = typeof message.method === 'string' && message.id !== undefined
      const replaying = tape !== undefined && answersFromCassette(tape)
      if (!tape || !isRequest || tape.action === 'passthrough') {
        // Nothing leaves in replay, on a transport connected before the tape began too.
        if (virtual && replaying && tape === connectedBy) handshake.push(message)
        if (virtual || replaying) return
        return runInsideDecision(() => inner.send(message, sendOptions))
      }
      const begun = tape.begin('mcp', mcpInput(server, message.method!, message.params))
      // Replay answers from the cassette, even on a transport connected before the tape began.
      if (begun.action === 'replay' && answersFromCassette(tape)) {
        if (virtual && tape === connectedBy) handshake.push(message)
        const answer = responseFrom(message.id!, begun.record.out, begun.record.err)
        queueMicrotask(() => outer.onmessage?.(answer))
        return
      }
      // Connected by a setup tape that replayed, and asked by a tape that reaches the server.
      if (virtual) {
        try {
          await goLive()
        } catch (error) {
          if (begun.action === 'record') begun.complete({ err: recordedError(error) }, 0)
          throw error
        }
      }
      const entry: Pending = { method: message.method!, tape, started: performance.now() }
      if (begun.action === 'record') entry.begun = begun
      if (begun.action === 'replay') entry.recorded = begun
      pending.set(message.id!, entry)
      return runInsideDecision(() => inner.send(message, sendOptions))
    },
    async close() {
      if (started) return inner.close()
      outer.onclose?.()
    },
    setProtocolVersion(version: string) {
      inner.setProtocolVersion?.(version)
    },
  }
  Object.defineProperty(outer, 'sessionId', { get: () => (virtual ? undefined : inner.sessionId) })

  /**
   * Starts the real transport of a client connected virtually, and makes its handshake again,
   * for real: the answers go to no one (the client has the recorded ones), the server now knows
   * the session. Once, whichever tape asks first.
   */
  function goLive(): Promise<void> {
    live ??= (async () => {
      inner.onmessage = (message: McpMessage, extra?: unknown) => void deliver(message, extra)
      inner.onclose = () => outer.onclose?.()
      inner.onerror = (error) => outer.onerror?.(error)
      await runInsideDecision(() => inner.start())
      started = true
      for (const [i, message] of handshake.entries()) {
        if (message.id === undefined) {
          await runInsideDecision(() => inner.send(message))
          continue
        }
        const id = `agent-tape-handshake-${i}`
        const answered = new Promise<McpMessage>((resolve) => handshakes.set(id, resolve))
        await runInsideDecision(() => inner.send({ ...message, id }))
        const answer = await answered
        if (answer.error) {
          throw new AgentTapeError('ERR_TAPE_USAGE', {
            what: `MCP server ${JSON.stringify(server)} refused the ${message.method} the client was connected with`,
            why: `a tape reaches the server after a setup tape connected the client from its cassette, so the recorded handshake is made again for real, and the server answered: ${answer.error.message}`,
            fix: 'Re-record the setup tape with the tests that use the client (the command its failures print), so that the handshake is made with the server as it is now',
          })
        }
      }
      virtual = false
    })()
    return live
  }

  /** The handshake made again by {@link goLive}, waiting for the server's answers. */
  const handshakes = new Map<string | number, (answer: McpMessage) => void>()

  async function deliver(message: McpMessage, extra?: unknown): Promise<void> {
    const made =
      message.id !== undefined && message.method === undefined ? handshakes.get(message.id) : undefined
    if (made) {
      handshakes.delete(message.id!)
      return made(message)
    }
    const entry =
      message.id !== undefined && message.method === undefined ? pending.get(message.id) : undefined
    if (!entry) return outer.onmessage?.(message, extra)
    pending.delete(message.id!)
    const err = message.error ? recordedMcpError(message.error) : undefined
    if (entry.begun) {
      entry.begun.complete(err ? { err } : { out: message.result }, performance.now() - entry.started)
      return outer.onmessage?.(message, extra)
    }
    if (entry.recorded && entry.method === 'tools/call') {
      // live-tools: the live result is checked against the recording; the client goes on with
      // the recorded one, as the model decisions after it were recorded with it.
      const record = entry.recorded.record
      await tapeInternals(entry.tape).checkLive(record, () => {
        if (err) throw Object.assign(new Error(err.message), { name: err.name, code: err.code })
        return message.result
      })
      return outer.onmessage?.(responseFrom(message.id!, record.out, record.err), extra)
    }
    return outer.onmessage?.(message, extra)
  }

  return outer as T
}

function recordedError(error: unknown): RecordedError {
  const e = error instanceof Error ? error : new Error(String(error))
  return { name: e.name, message: e.message }
}

function responseFrom(id: string | number, out: unknown, err: RecordedError | undefined): McpMessage {
  if (err) {
    const code = typeof err.code === 'number' ? err.code : -32603
    return { jsonrpc: '2.0', id, error: { code, message: err.message } }
  }
  if (out === undefined) {
    throw new AgentTapeError('ERR_TAPE_CORRUPT', {
      what: 'A recorded MCP response has neither a result nor an error',
      why: 'the cassette line was edited or written by another tool',
      fix: 'Restore the cassette from version control, or re-record the test',
    })
  }
  return { jsonrpc: '2.0', id, result: out }
}
