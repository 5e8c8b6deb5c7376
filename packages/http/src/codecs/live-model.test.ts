import { isAgentTapeError } from '@agent-tape/core/internal'
import { describe, expect, it } from 'vitest'
import { withLiveModel } from '../live-model.js'
import { findCodec } from './index.js'

// Sending a recorded command's live model requests to another model (`replay --from --model`):
// each codec knows where its API names the model, in the path or in the body.

async function swapped(url: string, body: unknown, model: string): Promise<{ url: string; body: unknown }> {
  const { pathname } = new URL(url)
  const codec = findCodec('POST', pathname)
  if (!codec) throw new Error(`no codec for ${pathname}`)
  const request = new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '999' },
    body: JSON.stringify(body),
  })
  const sent = await withLiveModel(request, codec, model)
  return { url: sent.url, body: await sent.json() }
}

describe('the model of a live request', () => {
  it('is replaced in the body for an API that names it there, the rest kept', async () => {
    const sent = await swapped(
      'https://api.openai.com/v1/chat/completions',
      { model: 'gpt-4o', messages: [] },
      'gpt-test',
    )
    expect(sent).toEqual({
      url: 'https://api.openai.com/v1/chat/completions',
      body: { model: 'gpt-test', messages: [] },
    })
  })

  it('is replaced in the path for an API whose path names it, the body kept', async () => {
    const gemini = await swapped(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      { contents: [] },
      'gemini-2.5-pro',
    )
    expect(gemini).toEqual({
      url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
      body: { contents: [] },
    })
    const bedrock = await swapped(
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku/converse',
      { messages: [] },
      'anthropic.claude-3-5-sonnet:0',
    )
    expect(bedrock.url).toBe(
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet%3A0/converse',
    )
  })

  it('cannot be replaced in a request that names none, and says so', async () => {
    const error = await swapped(
      'https://api.openai.com/v1/chat/completions',
      { messages: [] },
      'gpt-test',
    ).catch((e: unknown) => e)
    expect(isAgentTapeError(error) && error.message).toContain(
      'Cannot send a openai-chat request to model "gpt-test": the request to api.openai.com/v1/chat/completions names no model in its body ("model")',
    )
  })
})
