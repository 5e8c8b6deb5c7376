// A real MCP server built with @modelcontextprotocol/sdk, for the tape's MCP tests. Run as a
// child process it speaks stdio; imported, `startHttpWeatherServer` serves streamable HTTP on
// loopback. The temperature comes from WEATHER_TEMP_C (stdio) or the option (HTTP), so a test
// can move the "upstream" between a recording and a live run. With MCP_STARTED_FILE set, the
// stdio server writes that file as it starts, so a test can tell whether it was started at all.
import { appendFileSync } from 'node:fs'
import http from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
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

/** Streamable HTTP on loopback, stateless: a fresh server and transport per request. */
export async function startHttpWeatherServer(options = { tempC: 18 }) {
  let connections = 0
  let requests = 0
  const httpServer = http.createServer(async (req, res) => {
    requests++
    const server = createWeatherServer(() => options.tempC)
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res)
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
