import { hash } from 'node:crypto'
import { type DecisionPosition, KEY_SCHEME_VERSION } from './canonical-key.js'

/**
 * Version of the wire fingerprint, hashed into every fingerprint. Bump it when what a
 * fingerprint covers changes, so fingerprints written before simply stop matching (the request
 * then takes the keyed path) instead of standing for something else.
 */
export const WIRE_SCHEME_VERSION = 1

/**
 * Fingerprints requests as their boundary saw them (see {@link DecisionRecord.wire}) for a tape
 * whose successive requests share most of their bytes: an agent loop re-sends its whole history
 * at every step. A body's digest is the sha256 of its length and of the sha256 of each of its
 * fixed-size chunks. A chunk equal to the one at the same offset in the previous body of the
 * same lane (compared with `Buffer#equals`, a memcmp) keeps that one's digest, so only chunks
 * with new bytes are hashed: an appended history costs its new bytes and the last chunk of the
 * previous body, and an edit that keeps the length (a request id near the start) one chunk.
 */
export class WireHasher {
  private readonly trails = new Map<string, BodyTrail>()

  /** The digest of a request body, reusing the chunks it shares with the previous body of `lane`. */
  bodyDigest(lane: string, body: Uint8Array | undefined): string {
    if (body === undefined || body.byteLength === 0) return ''
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    const trail = digestChunks(bytes, this.trails.get(lane))
    this.trails.set(lane, trail)
    return trail.digest
  }
}

/**
 * The fingerprint of a request: 16 hex digits of sha256 over the scheme versions, the kind and
 * position of its decision, what the boundary says decides its canonical input (`head`), and
 * the digest of its body. Every part but the digest has a fixed alphabet or is JSON, and the
 * parts are separated by NUL, which none of them contains, so distinct parts never run together.
 */
export function wireFingerprint(
  kind: string,
  position: DecisionPosition,
  head: string,
  bodyDigest: string,
): string {
  const material = `${WIRE_SCHEME_VERSION}\u0000${KEY_SCHEME_VERSION}\u0000${kind}\u0000${position.step}\u0000${position.lane ?? ''}\u0000${bodyDigest}\u0000${head}`
  return hash('sha256', material, 'hex').slice(0, 16)
}

interface BodyTrail {
  bytes: Buffer
  /** The sha256 of each chunk of `bytes`, in order. */
  chunks: Buffer[]
  digest: string
}

const CHUNK = 16 * 1024

function digestChunks(bytes: Buffer, previous: BodyTrail | undefined): BodyTrail {
  const chunks: Buffer[] = []
  for (let start = 0, i = 0; start < bytes.length; start += CHUNK, i++) {
    const end = Math.min(start + CHUNK, bytes.length)
    const chunk = bytes.subarray(start, end)
    const same =
      previous !== undefined &&
      i < previous.chunks.length &&
      Math.min(start + CHUNK, previous.bytes.length) === end &&
      chunk.equals(previous.bytes.subarray(start, end))
    chunks.push(same ? previous.chunks[i]! : hash('sha256', chunk, 'buffer'))
  }
  const whole = Buffer.concat([Buffer.from(`${bytes.length}\u0000`), ...chunks])
  return { bytes, chunks, digest: hash('sha256', whole, 'hex') }
}
