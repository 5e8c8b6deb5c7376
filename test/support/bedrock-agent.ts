import { createRequire } from 'node:module'
import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  ConverseCommand,
  type ConverseCommandOutput,
  type Message,
  type Tool,
} from '@aws-sdk/client-bedrock-runtime'
import { RESEARCH_TOOLS } from './scripts.js'

// The client speaks HTTP/2 by default (NodeHttp2Handler); most tests here give it the SDK's HTTP/1.1
// handler (`@smithy/node-http-handler`, the SDK's own copy of it), which the fake provider's main
// port speaks, and `http2BedrockClient` keeps the default.
const fromSdk = createRequire(createRequire(import.meta.url).resolve('@aws-sdk/client-bedrock-runtime'))
const { NodeHttpHandler } = fromSdk('@smithy/node-http-handler') as {
  NodeHttpHandler: new () => NonNullable<BedrockRuntimeClientConfig['requestHandler']>
}

/** Credentials shaped like real ones (an STS session's), so a leak would be caught by the scan too. */
export const AWS_CREDENTIALS = {
  accessKeyId: 'ASIAQBEDROCKTAPE1234',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYBedrockKey12',
  sessionToken: `IQoJb3JpZ2luX2VjEBedrockSessionToken${'Zm9vYmFy'.repeat(12)}`,
}

export const MODEL_ID = 'anthropic.claude-3-5-sonnet-20240620-v1:0'

/** A Bedrock Runtime client on a fake provider, over HTTP/1.1. */
export function bedrockClient(endpoint: string, config: Partial<BedrockRuntimeClientConfig> = {}) {
  return new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint,
    credentials: AWS_CREDENTIALS,
    requestHandler: new NodeHttpHandler(),
    ...config,
  })
}

/** The default client, over HTTP/2: give it the fake provider's `http2Url`. */
export function http2BedrockClient(endpoint: string) {
  return new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint,
    credentials: AWS_CREDENTIALS,
    maxAttempts: 1,
  })
}

export const CONVERSE_TOOLS: Tool[] = [
  {
    toolSpec: {
      name: 'search',
      description: 'Web search',
      inputSchema: { json: { type: 'object', properties: { query: { type: 'string' } } } },
    },
  },
  {
    toolSpec: {
      name: 'fetch_page',
      description: 'Fetch a page',
      inputSchema: { json: { type: 'object', properties: { url: { type: 'string' } } } },
    },
  },
]

/** A research agent on `ConverseCommand`: it calls the tools the model asks for until it answers. */
export async function runConverseAgent(client: BedrockRuntimeClient, question: string) {
  const messages: Message[] = [{ role: 'user', content: [{ text: question }] }]
  const answers: ConverseCommandOutput[] = []
  for (let step = 0; step < 5; step++) {
    const answer = await client.send(
      new ConverseCommand({
        modelId: MODEL_ID,
        system: [{ text: 'Be brief.' }],
        messages,
        toolConfig: { tools: CONVERSE_TOOLS },
        inferenceConfig: { maxTokens: 512 },
      }),
    )
    answers.push(answer)
    const message = answer.output?.message
    if (!message) throw new Error('no message')
    messages.push(message)
    const uses = (message.content ?? []).flatMap((block) => (block.toolUse ? [block.toolUse] : []))
    if (uses.length === 0) return { text: (message.content ?? []).map((b) => b.text ?? '').join(''), answers }
    messages.push({
      role: 'user',
      content: uses.map((use) => ({
        toolResult: {
          toolUseId: use.toolUseId,
          content: [
            {
              text: (RESEARCH_TOOLS as Record<string, (a: never) => string>)[use.name!]!(use.input as never),
            },
          ],
        },
      })),
    })
  }
  throw new Error('step budget exhausted')
}
