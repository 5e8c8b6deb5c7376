import type { Turn } from '@agent-tape/fake-provider'
import type { Content, GenerateContentResponse, GoogleGenAI } from '@google/genai'
import { RESEARCH_TOOLS, researchScript } from './scripts.js'

/** The research script, counting Gemini's function responses as the tool results it counts. */
export function geminiResearchScript(body: unknown): Turn {
  const responses = JSON.stringify(body).split('"functionResponse"').length - 1
  return researchScript({ messages: Array.from({ length: responses }, () => ({ role: 'tool' })) })
}

const TOOLS = [
  {
    functionDeclarations: [
      {
        name: 'search',
        description: 'Web search',
        parametersJsonSchema: {
          type: 'object',
          properties: { query: { type: 'string' } },
          required: ['query'],
        },
      },
      {
        name: 'fetch_page',
        description: 'Fetch a page',
        parametersJsonSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
      },
    ],
  },
]

/** What the SDK returned, without the HTTP headers it attaches (only some are stored). */
function withoutHeaders(response: GenerateContentResponse): Omit<GenerateContentResponse, 'sdkHttpResponse'> {
  const { sdkHttpResponse: _, ...rest } = response
  return JSON.parse(JSON.stringify(rest)) as Omit<GenerateContentResponse, 'sdkHttpResponse'>
}

/**
 * A research agent on `@google/genai`: it calls the model, runs the functions it asks for, and
 * sends their results back until the model answers. Returns the answer and every response (or,
 * streamed, every chunk) the SDK gave.
 */
export async function runGeminiAgent(
  ai: GoogleGenAI,
  question: string,
  stream: boolean,
  model = 'gemini-2.5-flash',
) {
  const contents: Content[] = [{ role: 'user', parts: [{ text: question }] }]
  const responses: unknown[] = []
  for (let step = 0; step < 5; step++) {
    const request = {
      model,
      contents,
      config: { systemInstruction: 'Answer from what the tools find.', tools: TOOLS, temperature: 0 },
    }
    const chunks: GenerateContentResponse[] = []
    if (stream) for await (const chunk of await ai.models.generateContentStream(request)) chunks.push(chunk)
    else chunks.push(await ai.models.generateContent(request))
    responses.push(...chunks.map(withoutHeaders))
    contents.push({ role: 'model', parts: chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []) })
    const calls = chunks.flatMap((c) => c.functionCalls ?? [])
    if (calls.length === 0) return { text: chunks.map((c) => c.text ?? '').join(''), responses }
    contents.push({
      role: 'user',
      parts: calls.map((call) => {
        const tool = RESEARCH_TOOLS[call.name as keyof typeof RESEARCH_TOOLS] as (args: unknown) => string
        return { functionResponse: { name: call.name, response: { output: tool(call.args) } } }
      }),
    })
  }
  throw new Error('the agent did not answer in 5 steps')
}
