import { describe, expect, it } from 'vitest'
import { startLiveServer } from '../support/live-server.js'
import { startRealtimeServer } from '../support/realtime-server.js'
import { startResponsesWsServer } from '../support/responses-ws-server.js'
import { RUNNERS, testFile } from './runners.js'

// A realtime session (OpenAI Realtime through the SDK's OpenAIRealtimeWS) in a real test run of
// each runner: recorded against the loopback server, then replayed in CI with no connection.
const CASSETTE = 'test/__cassettes__/realtime.test.ts/weather.jsonl'
/** Gemini's key, in the URL of every Live session: never in the cassette, not needed in a replay. */
const LIVE_KEY = 'live-fixture-key-0123456789'

const SESSION = [
  "import OpenAI from 'openai'",
  "import { OpenAIRealtimeWS } from 'openai/realtime/ws'",
  '',
  "it.tape('weather', async () => {",
  "  const client = new OpenAI({ baseURL: process.env.FAKE_PROVIDER_URL + '/v1' })",
  "  const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { ca: process.env.REALTIME_CA } }, client)",
  '  const seen: string[] = []',
  "  const done = new Promise<void>((resolve) => rt.socket.on('close', () => resolve()))",
  "  rt.on('response.function_call_arguments.done', (e) => seen.push(e.name + '(' + e.arguments + ')'))",
  "  rt.on('response.done', () => rt.close())",
  "  await new Promise((resolve) => rt.socket.once('open', resolve))",
  "  rt.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] } })",
  "  rt.send({ type: 'response.create' })",
  '  await done',
  '  expect(seen).toEqual([\'get_weather({"city":"Paris"})\'])',
  '})',
]

// The same for a Gemini Live session (@google/genai's ai.live.connect), in the same runs: the
// tape 'edited' reads its system instruction from the environment, to miss in the replay.
const LIVE_CASSETTES = 'test/__cassettes__/live.test.ts'

const LIVE = [
  "import { GoogleGenAI, Modality } from '@google/genai'",
  '',
  'const weather = async (instruction: string) => {',
  "  const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY ?? 'none', httpOptions: { baseUrl: process.env.LIVE_URL + '/v1' } })",
  '  const seen: string[] = []',
  '  let closed = () => {}',
  '  const done = new Promise<void>((resolve) => { closed = resolve })',
  '  let session: Awaited<ReturnType<typeof ai.live.connect>> | undefined',
  '  const connecting = ai.live.connect({',
  "    model: 'gemini-live-2.5-flash',",
  "    config: { responseModalities: [Modality.TEXT], systemInstruction: instruction, tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }] },",
  '    callbacks: {',
  '      onmessage: (m) => {',
  '        for (const call of m.toolCall?.functionCalls ?? []) {',
  "          seen.push(call.name + '(' + JSON.stringify(call.args) + ')')",
  '          session?.sendToolResponse({ functionResponses: [{ id: call.id, name: call.name, response: { temp: 21 } }] })',
  '        }',
  "        for (const part of m.serverContent?.modelTurn?.parts ?? []) seen.push(part.text ?? '')",
  '        if (m.serverContent?.turnComplete) session?.close()',
  '      },',
  '      onclose: () => closed(),',
  '    },',
  '  })',
  '  // The SDK waits for setupComplete, which a session closed at its setup never sends.',
  '  session = await Promise.race([connecting, done.then(() => undefined)])',
  '  if (!session) return seen',
  "  session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }], turnComplete: true })",
  '  await done',
  '  return seen',
  '}',
  '',
  "it.tape('weather', async () => {",
  "  expect(await weather('Be brief.')).toEqual(['get_weather({\"city\":\"Paris\"})', 'In Paris ', 'it is 21 degrees.'])",
  '})',
  '',
  "it.tape('edited', async () => {",
  "  expect((await weather(process.env.LIVE_INSTRUCTION ?? 'Be brief.'))).toContain('it is 21 degrees.')",
  '})',
]

// And a session of the Responses API's WebSocket mode (the SDK's ResponsesWS), in the same runs.
const RESPONSES_CASSETTE = 'test/__cassettes__/responses.test.ts/weather.jsonl'

const RESPONSES = [
  "import OpenAI from 'openai'",
  "import { ResponsesWS } from 'openai/resources/responses/ws'",
  '',
  "it.tape('weather', async () => {",
  '  const rws = new ResponsesWS(new OpenAI({ baseURL: process.env.RESPONSES_URL }))',
  '  const seen: string[] = []',
  "  const done = new Promise<void>((resolve) => rws.on('close', () => resolve()))",
  "  rws.on('response.output_item.done', (e) => { if (e.item.type === 'function_call') seen.push(e.item.name + '(' + e.item.arguments + ')') })",
  "  rws.on('response.completed', (e) => { seen.push(e.response.usage?.output_tokens + ' tokens'); rws.close() })",
  "  await new Promise((resolve) => rws.socket.once('open', resolve))",
  "  const tool = { type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }",
  "  rws.send({ type: 'response.create', model: 'gpt-4.1-mini', input: 'Weather in Paris?', tools: [tool] })",
  '  await done',
  '  expect(seen).toEqual([\'get_weather({"city":"Paris"})\', \'30 tokens\'])',
  '})',
]

/** What Jest prints when something the tests left (a socket, a timer) keeps the process alive after the run. */
const JEST_KEPT_WAITING = 'Jest did not exit one second after the test run has completed'

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  it('records Realtime, Live and Responses WebSocket sessions in a test and replays them in CI with no connection; an edit misses at setup', async () => {
    const server = await startRealtimeServer()
    const live = await startLiveServer()
    const responses = await startResponsesWsServer()
    const project = runner.project()
    const env = {
      FAKE_PROVIDER_URL: server.baseURL.replace(/\/v1$/, ''),
      REALTIME_CA: server.ca,
      LIVE_URL: live.url,
      RESPONSES_URL: responses.baseURL,
    }
    try {
      // The Live and Responses servers are model endpoints of their own.
      const config = project.read(runner.configFile)
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own template literal, as written
      const endpoint = '`${process.env.FAKE_PROVIDER_URL}/v1`'
      expect(config).toContain(endpoint)
      project.write(
        runner.configFile,
        config.replace(
          endpoint,
          `${endpoint}, \`\${process.env.LIVE_URL}/v1\`, \`\${process.env.RESPONSES_URL}\``,
        ),
      )
      project.write('test/realtime.test.ts', testFile(runner, SESSION))
      project.write('test/live.test.ts', testFile(runner, LIVE))
      project.write('test/responses.test.ts', testFile(runner, RESPONSES))
      const files = 'test/realtime.test.ts test/live.test.ts test/responses.test.ts'
      const record = await project.runTests(files, {
        ...env,
        OPENAI_API_KEY: `sk-proj-${'Fixture'.repeat(6)}`,
        GEMINI_API_KEY: LIVE_KEY,
      })
      expect(record.code, record.output).toBe(0)
      expect(live.sessions.map((s) => s.url)).toEqual([
        `/v1/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${LIVE_KEY}`,
        `/v1/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=${LIVE_KEY}`,
      ])
      const frames = (file: string) =>
        project
          .read(file)
          .trimEnd()
          .split('\n')
          .slice(1)
          .map((line) => JSON.parse(line).in.frame)
      expect(frames(CASSETTE)).toEqual(['open', 'conversation.item.create', 'response.create'])
      expect(frames(`${LIVE_CASSETTES}/weather.jsonl`)).toEqual([
        'open',
        'setup',
        'clientContent',
        'toolResponse',
      ])
      expect(project.read(`${LIVE_CASSETTES}/weather.jsonl`)).not.toContain(LIVE_KEY)
      expect(frames(RESPONSES_CASSETTE)).toEqual(['open', 'response.create'])
      // Replayed in CI with the Live and Responses servers stopped, no key given, and the edit in
      // the environment.
      await live.close()
      await responses.close()
      const connections = server.connections
      const replay = await project.runTests(files, {
        ...env,
        CI: 'true',
        LIVE_INSTRUCTION: 'Be concise.',
      })
      expect(server.connections).toBe(connections)
      expect(replay.output).toContain(runner.tests({ failed: 1, passed: 3 }))
      expect(replay.output).toContain('websocket setup (gemini-live)')
      expect(replay.output).toContain(
        'message.setup.systemInstruction.parts[0].text: "Be brief." → "Be concise."',
      )
      // Every session closed on both ends, the one closed at its miss too: nothing kept Jest
      // waiting after the run (a close timer of the `ws` package held it for 30 s).
      if (runner.name === 'Jest')
        for (const run of [record, replay]) expect(run.output).not.toContain(JEST_KEPT_WAITING)
    } finally {
      project.dispose()
      await server.close()
      await live.close()
      await responses.close()
    }
  })
})
