// A real MCP server built with @modelcontextprotocol/sdk, for the tape's MCP tests. Run as a
// child process it speaks stdio; imported, `startHttpWeatherServer` serves streamable HTTP on
// loopback. The temperature comes from WEATHER_TEMP_C (stdio) or the option (HTTP), so a test
// can move the "upstream" between a recording and a live run. With MCP_STARTED_FILE set, the
// stdio server writes that file as it starts, so a test can tell whether it was started at all.
import { randomUUID } from 'node:crypto'
import { appendFileSync } from 'node:fs'
import http from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

export function createWeatherServer(temperature = () => Number(process.env.WEATHER_TEMP_C ?? 18)) {
  const server = new McpServer({ name: 'weather', version: '1.0.0' })
  server.registerTool(
    'get_weather',
    { description: 'Current weather in a city', inputSchema: { city: z.string() } },
    async ({ city }) => ({
      content: [{ type: 'text', text: JSON.stringify({ city, tempC: temperature() }) }],
    }),
  )
  return server
}

/**
 * Streamable HTTP on loopback. Stateless by default: a fresh server and transport per request.
 * With `stateful: true`, as the SDK's own example server: `initialize` opens a session whose id
 * every later request must carry, and a request with an unknown one is refused with a 400.
 */
export async function startHttpWeatherServer(options = { tempC: 18 }) {
  let connections = 0
  let requests = 0
  /** Session id → transport, for a stateful server. */
  const sessions = new Map()
  const stateless = async (req, res) => {
    const server = createWeatherServer(() => options.tempC)
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res)
  }
  const stateful = async (req, res) => {
    const id = req.headers['mcp-session-id']
    const known = typeof id === 'string' ? sessions.get(id) : undefined
    if (known) return known.handleRequest(req, res)
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined
    if (id !== undefined || req.method !== 'POST' || !isInitializeRequest(body)) {
      res.writeHead(400, { 'content-type': 'application/json' })
      const error = { code: -32000, message: 'Bad Request: No valid session ID provided' }
      return res.end(JSON.stringify({ jsonrpc: '2.0', error, id: null }))
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
    })
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId)
    }
    await createWeatherServer(() => options.tempC).connect(transport)
    await transport.handleRequest(req, res, body)
  }
  const httpServer = http.createServer(async (req, res) => {
    requests++
    await (options.stateful ? stateful(req, res) : stateless(req, res))
  })
  httpServer.on('connection', () => {
    connections++
  })
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve))
  const { port } = httpServer.address()
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    options,
    get connections() {
      return connections
    },
    get requests() {
      return requests
    },
    /** The ids of the sessions a stateful server has open. */
    get sessions() {
      return [...sessions.keys()]
    },
    close: () =>
      new Promise((resolve) => {
        httpServer.closeAllConnections?.()
        httpServer.close(resolve)
      }),
  }
}

if (process.argv[2] === 'stdio') {
  if (process.env.MCP_STARTED_FILE) appendFileSync(process.env.MCP_STARTED_FILE, 'started\n')
  await createWeatherServer().connect(new StdioServerTransport())
}

if (process.argv[2] === 'http') {
  // In a process of its own, as a user's server runs: the URL is its first line of output.
  const server = await startHttpWeatherServer({ tempC: 18, stateful: process.argv[3] === 'stateful' })
  process.stdout.write(`${server.url}\n`)
}
