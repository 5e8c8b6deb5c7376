import type { Content, GenerateContentResponse, GoogleGenAI } from '@google/genai'
import { type Ask, runTool, STEPS } from './research.js'

const TOOLS = [
  {
    functionDeclarations: Object.entries({ search: 'query', fetch_page: 'url' }).map(([name, field]) => ({
      name,
      parametersJsonSchema: { type: 'object', properties: { [field]: { type: 'string' } } },
    })),
  },
]

/** A response as the agent keeps it: without the HTTP headers the SDK attaches (only some are stored). */
function withoutHeaders(response: GenerateContentResponse): unknown {
  const { sdkHttpResponse: _, ...rest } = response
  return JSON.parse(JSON.stringify(rest))
}

/** The research agent on `@google/genai`: `generateContent`, or `generateContentStream`. */
export async function geminiResearch(ai: GoogleGenAI, model: string, question: string, ask: Ask) {
  const contents: Content[] = [{ role: 'user', parts: [{ text: question }] }]
  for (let step = 0; step < STEPS; step++) {
    const request = { model, contents, config: { tools: TOOLS } }
    const chunks: GenerateContentResponse[] = []
    if (ask.stream) {
      for await (const chunk of await ai.models.generateContentStream(request)) {
        chunks.push(chunk)
        ask.received.push(withoutHeaders(chunk))
      }
    } else {
      const response = await ai.models.generateContent(request)
      chunks.push(response)
      ask.received.push(withoutHeaders(response))
    }
    contents.push({ role: 'model', parts: chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []) })
    const calls = chunks.flatMap((c) => c.functionCalls ?? [])
    if (calls.length === 0) return chunks.map((c) => c.text ?? '').join('')
    contents.push({
      role: 'user',
      parts: calls.map((call) => ({
        functionResponse: { name: call.name, response: { output: runTool(call.name!, call.args) } },
      })),
    })
  }
  throw new Error(`no answer after ${STEPS} steps`)
}
