/** How much of an answer is kept as a run's outcome: a larger one is left out of the header. */
const MAX_ANSWER_BYTES = 256 * 1024

/**
 * What a handler answered, kept as it is sent (references to the chunks, nothing copied or
 * decoded on the way) and read once the run is kept: the run's outcome `value`, which the test
 * `agent-tape promote` writes asserts. An answer larger than 256 KB is not kept.
 */
export class AnswerBody {
  private chunks: (string | Uint8Array)[] = []
  private size = 0

  /** Notes a chunk as `res.write`, `res.end` or a response body hands it on; anything else is not a chunk. */
  add(chunk: unknown): void {
    if (this.size > MAX_ANSWER_BYTES) return
    if (typeof chunk === 'string') this.size += chunk.length
    else if (chunk instanceof Uint8Array) this.size += chunk.byteLength
    else return
    if (this.size > MAX_ANSWER_BYTES) this.chunks = []
    else this.chunks.push(chunk)
  }

  /**
   * The answer as a value: its JSON for a JSON answer, its text for a textual one, `undefined`
   * for none, one that is not text, or one too large to keep.
   */
  value(contentType: unknown): unknown {
    if (this.chunks.length === 0 || this.size > MAX_ANSWER_BYTES) return undefined
    const type = typeof contentType === 'string' ? contentType : ''
    if (type !== '' && !/json|text|xml|javascript/i.test(type)) return undefined
    const text = this.chunks
      .map((c) => (typeof c === 'string' ? c : Buffer.from(c).toString('utf8')))
      .join('')
    if (/json/i.test(type)) {
      try {
        return JSON.parse(text)
      } catch {
        return text
      }
    }
    return text
  }
}
