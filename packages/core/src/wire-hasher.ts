import { createHash, type Hash } from 'node:crypto'
import { type DecisionPosition, KEY_SCHEME_VERSION } from './canonical-key.js'

/**
 * Version of the wire fingerprint, hashed into every fingerprint. Bump it when what a
 * fingerprint covers changes, so fingerprints written before simply stop matching (the request
 * then takes the keyed path) instead of standing for something else.
 */
export const WIRE_SCHEME_VERSION = 1

/**
 * Fingerprints requests as their boundary saw them (see {@link DecisionRecord.wire}) for a tape
 * whose successive requests share a long prefix: an agent loop re-sends its whole history at
 * every step. The sha256 state of a body is kept at checkpoints along the previous body of the
 * same lane; a new body is compared with it chunk by chunk (`Buffer#equals`, a memcmp) and only
 * the bytes after the last chunk that still agrees are hashed again.
 */
export class WireHasher {
  private readonly trails = new Map<string, BodyTrail>()

  /** The sha256 of a request body, resumed along the previous body of `lane`. */
  bodyDigest(lane: string, body: Uint8Array | undefined): string {
    if (body === undefined || body.byteLength === 0) return ''
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    const trail = hashAlong(bytes, this.trails.get(lane))
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
  return createHash('sha256')
    .update(
      `${WIRE_SCHEME_VERSION}\u0000${KEY_SCHEME_VERSION}\u0000${kind}\u0000${position.step}\u0000${position.lane ?? ''}\u0000${bodyDigest}\u0000${head}`,
    )
    .digest('hex')
    .slice(0, 16)
}

interface Checkpoint {
  /** Offset in the body up to which `hash` has been fed. */
  end: number
  hash: Hash
}

interface BodyTrail {
  bytes: Buffer
  checkpoints: Checkpoint[]
  digest: string
}

const CHUNK = 8 * 1024

function hashAlong(bytes: Buffer, previous: BodyTrail | undefined): BodyTrail {
  const checkpoints: Checkpoint[] = []
  let start = 0
  if (previous) {
    for (const checkpoint of previous.checkpoints) {
      const { end } = checkpoint
      if (end > bytes.length || !bytes.subarray(start, end).equals(previous.bytes.subarray(start, end))) break
      checkpoints.push(checkpoint)
      start = end
    }
  }
  const hash = start === 0 ? createHash('sha256') : checkpoints[checkpoints.length - 1]!.hash.copy()
  while (bytes.length - start > CHUNK) {
    const end = start + CHUNK
    hash.update(bytes.subarray(start, end))
    checkpoints.push({ end, hash: hash.copy() })
    start = end
  }
  hash.update(bytes.subarray(start))
  return { bytes, checkpoints, digest: hash.digest('hex') }
}
