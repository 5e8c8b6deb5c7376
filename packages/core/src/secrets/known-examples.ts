import { createHash } from 'node:crypto'

/**
 * Keys that vendors publish in their documentation, which runs quote (an agent reading docs, a
 * test fixture) and which grant nothing: kept as sha256 digests, so that this file holds none of
 * them. AWS's examples (`AKIAIOSFODNN7EXAMPLE`) need no entry: `EXAMPLE` in a key's own
 * characters marks it a placeholder.
 */
const PUBLISHED = new Set([
  // Stripe's API reference test-mode keys.
  '2cafc0970149a84f3b9e62eaf169f36f59907a3b3e31f7b82e68c69cd27f7326',
  'f2d6ca16515033e5dce14eba840b979d27b5cbae24bb3e5bf484339667f86397',
  // The personal access token in GitHub's documentation.
  '3543c50b0cb9cea8e55eb1f529b79f043cb250d485fde7b66cabbb5183add7da',
])

/** A published documentation key, or the sample token of jwt.io's debugger. */
export function isPublishedExample(secret: string): boolean {
  if (secret.startsWith('eyJ')) return isSampleJwt(secret)
  return secret.length <= 128 && PUBLISHED.has(createHash('sha256').update(secret).digest('hex'))
}

/**
 * jwt.io signs its sample claims (`"sub": "1234567890", "name": "John Doe"`) with a published
 * secret; a token carrying exactly those claims is that sample, whatever the signature.
 */
function isSampleJwt(token: string): boolean {
  const payload = token.split('.')[1]
  if (!payload) return false
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
    return claims.sub === '1234567890' && claims.name === 'John Doe'
  } catch {
    return false
  }
}
