import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock'
import { createBedrockAnthropic } from '@ai-sdk/amazon-bedrock/anthropic'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { Ollama } from 'ollama'
import OpenAI, { AzureOpenAI } from 'openai'
import { AWS_CREDENTIALS, bedrockClient, MODEL_ID } from '../support/bedrock-agent.js'
import { aiResearch } from './agents/ai-sdk.js'
import { messagesResearch } from './agents/anthropic.js'
import { converseResearch, invokeResearch } from './agents/bedrock.js'
import { geminiResearch } from './agents/gemini.js'
import { ollamaResearch } from './agents/ollama.js'
import { chatResearch, responsesResearch } from './agents/openai.js'
import type { Ask } from './agents/research.js'

// The Claude provider of @ai-sdk/amazon-bedrock warns that it does not know the model id.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

/**
 * What differs between the clients of the model APIs in the scenarios every one must pass alike:
 * which codec owns its requests, where it sends them, how a user declares the server, which
 * field carries the question, what credential it sends, and its research agent.
 */
export interface ProviderClient {
  /** The SDK and the API it calls. */
  readonly name: string
  /** The codec that owns its requests (`MODEL_CODECS`). */
  readonly api: string
  /** The model it asks for, as the miss report names it. */
  readonly model: string
  /** What a user declares in `modelEndpoints` for a server at `url` (the refusal says so too). */
  endpoint(url: string): string
  /** The path of its first request, JSON or streamed. */
  path(stream: boolean): string
  /** The field of the first request that carries the question, as the diff names it. */
  readonly questionField: string
  /** What the client sends to say who it is: never in a cassette. */
  readonly credentials: readonly string[]
  /**
   * The research agent on a server at `url`: asks `question`, runs the tools the model asks for
   * until it answers, and returns the answer; an SDK error is thrown as the SDK threw it.
   */
  research(url: string, question: string, ask: Ask): Promise<string>
}

/** Not shaped like any provider's key: only the boundary keeps it out, not the secret scan. */
const KEY = `contract-${'K3yT0ken'.repeat(4)}`
const BEDROCK_MODEL = `/model/${encodeURIComponent(MODEL_ID)}`
const AWS_SENT = [AWS_CREDENTIALS.accessKeyId, AWS_CREDENTIALS.sessionToken]
const aws = (url: string) => ({ region: 'us-east-1', baseURL: url, ...AWS_CREDENTIALS })
const gemini = (stream: boolean) =>
  `/v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent' : 'generateContent'}`

/** The SDKs of each provider. */
const NATIVE: ProviderClient[] = [
  {
    name: 'openai: chat completions',
    api: 'openai-chat',
    model: 'gpt-4o',
    endpoint: (url) => `${url}/v1`,
    path: () => '/v1/chat/completions',
    questionField: 'body.messages[0].content',
    credentials: [KEY],
    research: (url, question, ask) =>
      chatResearch(new OpenAI({ apiKey: KEY, baseURL: `${url}/v1` }), 'gpt-4o', question, ask),
  },
  {
    name: 'openai: AzureOpenAI, a deployment',
    api: 'openai-chat',
    model: 'gpt-4o',
    endpoint: (url) => url,
    path: () => '/openai/deployments/gpt-4o-prod/chat/completions',
    questionField: 'body.messages[0].content',
    credentials: [KEY],
    research: (url, question, ask) => {
      const options = { apiKey: KEY, endpoint: url, deployment: 'gpt-4o-prod', apiVersion: '2024-10-21' }
      return chatResearch(new AzureOpenAI(options), 'gpt-4o', question, ask)
    },
  },
  {
    name: 'openai: responses',
    api: 'openai-responses',
    model: 'gpt-4.1',
    endpoint: (url) => `${url}/v1`,
    path: () => '/v1/responses',
    questionField: 'body.input[0].content',
    credentials: [KEY],
    research: (url, question, ask) =>
      responsesResearch(new OpenAI({ apiKey: KEY, baseURL: `${url}/v1` }), 'gpt-4.1', question, ask),
  },
  {
    name: '@anthropic-ai/sdk: messages',
    api: 'anthropic-messages',
    model: 'claude-sonnet-5',
    endpoint: (url) => `${url}/v1`,
    path: () => '/v1/messages',
    questionField: 'body.messages[0].content',
    credentials: [KEY],
    research: (url, question, ask) =>
      messagesResearch(new Anthropic({ apiKey: KEY, baseURL: url }), 'claude-sonnet-5', question, ask),
  },
  {
    name: '@google/genai: Gemini API',
    api: 'gemini',
    model: 'gemini-2.5-flash',
    endpoint: (url) => url,
    path: gemini,
    questionField: 'body.contents[0].parts[0].text',
    credentials: [KEY],
    research: (url, question, ask) =>
      geminiResearch(
        new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: url } }),
        'gemini-2.5-flash',
        question,
        ask,
      ),
  },
  {
    name: '@aws-sdk/client-bedrock-runtime: Converse',
    api: 'bedrock-converse',
    model: MODEL_ID,
    endpoint: (url) => url,
    path: (stream) => `${BEDROCK_MODEL}/${stream ? 'converse-stream' : 'converse'}`,
    questionField: 'body.messages[0].content[0].text',
    credentials: AWS_SENT,
    research: (url, question, ask) => converseResearch(bedrockClient(url), MODEL_ID, question, ask),
  },
  {
    name: '@aws-sdk/client-bedrock-runtime: InvokeModel with Claude',
    api: 'bedrock-invoke',
    model: MODEL_ID,
    endpoint: (url) => url,
    path: (stream) => `${BEDROCK_MODEL}/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
    questionField: 'body.messages[0].content',
    credentials: AWS_SENT,
    research: (url, question, ask) => invokeResearch(bedrockClient(url), MODEL_ID, question, ask),
  },
  {
    name: 'ollama: chat',
    api: 'ollama',
    model: 'qwen3',
    endpoint: (url) => url,
    path: () => '/api/chat',
    questionField: 'body.messages[0].content',
    // Sent only to ollama.com by the client; here in a header, as a proxy in front of Ollama wants it.
    credentials: [KEY],
    research: (url, question, ask) =>
      ollamaResearch(
        new Ollama({ host: url, headers: { Authorization: `Bearer ${KEY}` } }),
        'qwen3',
        question,
        ask,
      ),
  },
]

/** The `ai` SDK over each of its providers: one research agent, a model per provider. */
const AI: ProviderClient[] = [
  {
    name: 'ai: @ai-sdk/openai, responses',
    api: 'openai-responses',
    model: 'gpt-4.1',
    endpoint: (url) => `${url}/v1`,
    path: () => '/v1/responses',
    questionField: 'body.input[0].content[0].text',
    credentials: [KEY],
    research: (url, question, ask) =>
      aiResearch(createOpenAI({ apiKey: KEY, baseURL: `${url}/v1` })('gpt-4.1'), question, ask),
  },
  {
    name: 'ai: @ai-sdk/openai, chat',
    api: 'openai-chat',
    model: 'gpt-4.1',
    endpoint: (url) => `${url}/v1`,
    path: () => '/v1/chat/completions',
    questionField: 'body.messages[0].content',
    credentials: [KEY],
    research: (url, question, ask) =>
      aiResearch(createOpenAI({ apiKey: KEY, baseURL: `${url}/v1` }).chat('gpt-4.1'), question, ask),
  },
  {
    name: 'ai: @ai-sdk/openai-compatible, a gateway',
    api: 'openai-chat',
    model: 'meta-llama/llama-3.3-70b-instruct',
    endpoint: (url) => `${url}/llm/v1`,
    path: () => '/llm/v1/chat/completions',
    questionField: 'body.messages[0].content',
    credentials: [KEY],
    research: (url, question, ask) => {
      const options = { name: 'gateway', baseURL: `${url}/llm/v1`, apiKey: KEY, includeUsage: true }
      return aiResearch(createOpenAICompatible(options)('meta-llama/llama-3.3-70b-instruct'), question, ask)
    },
  },
  {
    name: 'ai: @ai-sdk/anthropic',
    api: 'anthropic-messages',
    model: 'claude-sonnet-5',
    endpoint: (url) => `${url}/v1`,
    path: () => '/v1/messages',
    questionField: 'body.messages[0].content[0].text',
    credentials: [KEY],
    research: (url, question, ask) =>
      aiResearch(createAnthropic({ apiKey: KEY, baseURL: `${url}/v1` })('claude-sonnet-5'), question, ask),
  },
  {
    name: 'ai: @ai-sdk/google',
    api: 'gemini',
    model: 'gemini-2.5-flash',
    endpoint: (url) => url,
    path: gemini,
    questionField: 'body.contents[0].parts[0].text',
    credentials: [KEY],
    research: (url, question, ask) =>
      aiResearch(
        createGoogleGenerativeAI({ apiKey: KEY, baseURL: `${url}/v1beta` })('gemini-2.5-flash'),
        question,
        ask,
      ),
  },
  {
    name: 'ai: @ai-sdk/amazon-bedrock, Converse',
    api: 'bedrock-converse',
    model: MODEL_ID,
    endpoint: (url) => url,
    path: (stream) => `${BEDROCK_MODEL}/${stream ? 'converse-stream' : 'converse'}`,
    questionField: 'body.messages[0].content[0].text',
    credentials: AWS_SENT,
    research: (url, question, ask) => aiResearch(createAmazonBedrock(aws(url))(MODEL_ID), question, ask),
  },
  {
    name: 'ai: @ai-sdk/amazon-bedrock, InvokeModel with Claude',
    api: 'bedrock-invoke',
    model: MODEL_ID,
    endpoint: (url) => url,
    path: (stream) => `${BEDROCK_MODEL}/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
    questionField: 'body.messages[0].content[0].text',
    credentials: AWS_SENT,
    research: (url, question, ask) => aiResearch(createBedrockAnthropic(aws(url))(MODEL_ID), question, ask),
  },
]

export const CLIENTS: readonly ProviderClient[] = [...NATIVE, ...AI]
