import { type GatewayMessage, type GatewayStart, runGateway } from './run-gateway.js'

/**
 * The gateway's own process (started by `agent-tape record` and `replay` beside the command):
 * a Node process without the boundary's interception, so that its `fetch` upstream is Node's
 * own, and apart from the CLI's (which may be a test's process, with tapes of its own). It
 * listens, says where over IPC, and on `close` stops, writes the report of each lane, says what
 * it did not tape, and exits.
 */
async function main(): Promise<void> {
  const start = JSON.parse(process.argv[2] ?? '{}') as GatewayStart
  const send = (message: GatewayMessage) =>
    new Promise<void>((resolve) => process.send!(message, () => resolve()))
  let gateway: Awaited<ReturnType<typeof runGateway>>
  try {
    gateway = await runGateway(start, process.env)
  } catch (error) {
    const failure = error as NodeJS.ErrnoException
    await send({ type: 'failed', code: failure.code, message: failure.message })
    process.exit(1)
  }
  process.on('message', async (message: { type?: string }) => {
    if (message?.type !== 'close') return
    const notices = await gateway.close()
    await send({ type: 'closed', notices })
    process.disconnect()
    process.exit(0)
  })
  // The parent gone (killed), the gateway goes too.
  process.on('disconnect', () => process.exit(0))
  await send({ type: 'listening', url: gateway.url, ...(gateway.caFile ? { caFile: gateway.caFile } : {}) })
}

void main()
