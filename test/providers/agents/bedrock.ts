import {
  type BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  type Message,
} from '@aws-sdk/client-bedrock-runtime'
import { CONVERSE_TOOLS } from '../../support/bedrock-agent.js'
import { ANTHROPIC_TOOLS, anthropicTurn } from './anthropic.js'
import { type Ask, runTool, STEPS } from './research.js'

/** The research agent on Converse: `ConverseCommand`, or the events of `ConverseStreamCommand`. */
export async function converseResearch(
  client: BedrockRuntimeClient,
  modelId: string,
  question: string,
  ask: Ask,
) {
  const messages: Message[] = [{ role: 'user', content: [{ text: question }] }]
  for (let step = 0; step < STEPS; step++) {
    const request = { modelId, messages, toolConfig: { tools: CONVERSE_TOOLS } }
    let content: ContentBlock[]
    if (ask.stream) {
      const answer = await client.send(new ConverseStreamCommand(request))
      content = []
      for await (const event of answer.stream!) {
        ask.received.push(event)
        const start = event.contentBlockStart?.start?.toolUse
        if (start) content.push({ toolUse: { toolUseId: start.toolUseId, name: start.name, input: '' } })
        const delta = event.contentBlockDelta?.delta
        if (delta?.text !== undefined) content.push({ text: delta.text })
        if (delta?.toolUse) (content.at(-1)!.toolUse!.input as unknown as string) += delta.toolUse.input
      }
      content = joinConverse(content)
    } else {
      const answer = await client.send(new ConverseCommand(request))
      ask.received.push(answer)
      content = answer.output?.message?.content ?? []
    }
    messages.push({ role: 'assistant', content })
    const uses = content.flatMap((block) => (block.toolUse ? [block.toolUse] : []))
    if (uses.length === 0) return content.map((b) => b.text ?? '').join('')
    messages.push({
      role: 'user',
      content: uses.map((use) => ({
        toolResult: { toolUseId: use.toolUseId, content: [{ text: runTool(use.name!, use.input) }] },
      })),
    })
  }
  throw new Error(`no answer after ${STEPS} steps`)
}

/** Streamed blocks as Converse returns them whole: text deltas joined, tool inputs parsed. */
function joinConverse(blocks: ContentBlock[]): ContentBlock[] {
  const text = blocks.flatMap((b) => (b.text === undefined ? [] : [b.text])).join('')
  const uses = blocks.flatMap((b) =>
    b.toolUse ? [{ toolUse: { ...b.toolUse, input: JSON.parse(b.toolUse.input as unknown as string) } }] : [],
  )
  return [...(text ? [{ text }] : []), ...uses]
}

interface ClaudeBlock {
  type: string
  text?: string
  id?: string
  name?: string
  input?: unknown
}

/** The research agent on InvokeModel with Claude's body: JSON, or the chunks of the streamed call. */
export async function invokeResearch(
  client: BedrockRuntimeClient,
  modelId: string,
  question: string,
  ask: Ask,
) {
  const messages: { role: string; content: unknown }[] = [{ role: 'user', content: question }]
  for (let step = 0; step < STEPS; step++) {
    const body = JSON.stringify({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 512,
      messages,
      tools: ANTHROPIC_TOOLS,
    })
    let content: ClaudeBlock[]
    if (ask.stream) {
      const answer = await client.send(new InvokeModelWithResponseStreamCommand({ modelId, body }))
      const events = []
      for await (const part of answer.body!) {
        const event = JSON.parse(new TextDecoder().decode(part.chunk?.bytes))
        events.push(event)
        ask.received.push(event)
      }
      content = claudeContent(events)
    } else {
      const answer = await client.send(
        new InvokeModelCommand({ modelId, body, contentType: 'application/json' }),
      )
      const message = JSON.parse(new TextDecoder().decode(answer.body))
      ask.received.push(message)
      content = message.content
    }
    const next = anthropicTurn(content)
    if (!next) return content.map((b) => b.text ?? '').join('')
    messages.push({ role: 'assistant', content }, next)
  }
  throw new Error(`no answer after ${STEPS} steps`)
}

/** The content blocks of Claude's streamed events. */
function claudeContent(
  events: { type: string; content_block?: ClaudeBlock; delta?: Record<string, string> }[],
) {
  const blocks: (ClaudeBlock & { json?: string })[] = []
  for (const event of events) {
    if (event.type === 'content_block_start') blocks.push({ ...event.content_block!, json: '' })
    if (event.type !== 'content_block_delta') continue
    const block = blocks.at(-1)!
    if (event.delta?.type === 'text_delta') block.text = (block.text ?? '') + event.delta.text
    if (event.delta?.type === 'input_json_delta') block.json += event.delta.partial_json ?? ''
  }
  return blocks.map(({ json, ...block }) =>
    block.type === 'tool_use' ? { ...block, input: JSON.parse(json || '{}') } : block,
  )
}
