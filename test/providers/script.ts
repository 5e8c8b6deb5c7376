import type { Turn } from '@agent-tape/fake-provider'
import { researchScript } from '../support/scripts.js'

/** The question every research agent asks, and its answer after searching and fetching a page. */
export const QUESTION = 'When was magnetic tape invented?'
export const ANSWER = 'Magnetic tape recording was invented in 1928.'
/** The question after a prompt edit. */
export const EDITED = 'When was tape invented?'

/** A key shaped like OpenAI's, which the model writes out in the answer to {@link LEAK}. */
export const SECRET = `sk-proj-${'Op3nAiK3y'.repeat(5)}`

/** Questions the model answers with a failure, or with a secret. */
export const REFUSE = 'Refuse this question.'
export const BREAK = 'Break off mid-stream.'
export const CUT = 'Cut the stream off.'
export const LEAK = 'Write out the key.'

/**
 * The contract's model, whatever the wire format: a question above gets its failure; any other
 * runs the research script (search, fetch a page, answer).
 */
export function contractScript(body: unknown): Turn {
  const text = JSON.stringify(body)
  if (text.includes(REFUSE)) return { error: { status: 403, message: 'Not allowed.' } }
  // Events spaced as a provider writes them: an SDK may read an error coalesced with the data
  // before it otherwise than the same error on its own (@google/genai does).
  if (text.includes(BREAK))
    return {
      text: ['partial ', 'answer ', 'here'],
      streamError: { message: 'Try again later.' },
      chunkDelayMs: 2,
    }
  if (text.includes(CUT))
    return { text: ['one ', 'two ', 'three ', 'four'], cutAfterEvents: 3, chunkDelayMs: 2 }
  // The key split between two text deltas, so that only the answer reassembled holds it.
  if (text.includes(LEAK))
    return { text: [`Here: ${SECRET.slice(0, 20)}`, `${SECRET.slice(20)} (keep it safe)`] }
  return researchScript(body)
}
