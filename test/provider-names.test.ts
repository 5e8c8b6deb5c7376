import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { MODEL_CODECS, SESSION_CODECS } from '@agent-tape/http/internal'
import { describe, expect, it } from 'vitest'

// A provider lives in its codec: adding one is a file in packages/http/src/codecs/ and its
// counterpart in the fake provider. No other source file may know a provider by name.
const ROOT = join(import.meta.dirname, '..')
const PROVIDER =
  /openai|anthropic|claude|gemini|google|vertex|bedrock|amazon|\baws\b|x-amz|ollama|azure|mistral|groq|cohere|deepseek|together\.xyz|fireworks|openrouter|perplexity|\bx\.ai\b|\bxai\b|chatcmpl|toolu_|\bgpt-/i

const MAY_NAME_PROVIDERS = [
  'packages/http/src/codecs/',
  // The loopback server that speaks each provider's wire format, for the tests.
  'packages/fake-provider/',
  // A stream format is known by its content type, which may name its vendor (AWS's event stream).
  'packages/http/src/streams/eventstream.ts',
  // Credential formats of the services whose keys leak into payloads, providers among them:
  // a secret rule knows what a key looks like, not how an API behaves.
  'packages/core/src/secrets/rules.ts',
]

/** Lines of code (comments left out) that name a provider, as `file:line: text`. */
export function providerMentions(file: string, source: string): string[] {
  const found: string[] = []
  let inBlock = false
  source.split('\n').forEach((line, i) => {
    const text = line.trim()
    if (inBlock) {
      inBlock = !text.includes('*/')
      return
    }
    if (text.startsWith('/*')) {
      inBlock = !text.includes('*/')
      return
    }
    if (text.startsWith('//') || text.startsWith('*')) return
    if (PROVIDER.test(text)) found.push(`${file}:${i + 1}: ${text}`)
  })
  return found
}

function sourceFiles(dir: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...sourceFiles(path))
    else if (/\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)) files.push(path)
  }
  return files
}

describe('provider knowledge lives in the codecs', () => {
  it('names no provider in any package source outside the codecs and the fake provider', () => {
    const packages = join(ROOT, 'packages')
    const mentions: string[] = []
    for (const name of readdirSync(packages)) {
      for (const file of sourceFiles(join(packages, name, 'src'))) {
        const path = relative(ROOT, file)
        if (MAY_NAME_PROVIDERS.some((allowed) => path.startsWith(allowed))) continue
        mentions.push(...providerMentions(path, readFileSync(file, 'utf8')))
      }
    }
    expect(mentions).toEqual([])
  })

  it('finds a provider named in code, and not one named in a comment', () => {
    const source = [
      '/** Reads `gpt-4o` answers. */',
      '// Anthropic streams differ.',
      '/*',
      '  OpenAI',
      '*/',
      "const host = 'api.openai.com'",
      "if (api === 'anthropic-messages') read()",
    ].join('\n')
    expect(providerMentions('x.ts', source)).toEqual([
      "x.ts:6: const host = 'api.openai.com'",
      "x.ts:7: if (api === 'anthropic-messages') read()",
    ])
  })

  it('lists every codec file among the codecs, each with a distinct name', () => {
    const dir = join(ROOT, 'packages/http/src/codecs')
    const shared = new Set(['codec.ts', 'index.ts', 'read.ts', 'unread-providers.ts', 'session-codec.ts'])
    const codecFiles = readdirSync(dir).filter(
      (f) => f.endsWith('.ts') && !f.includes('.test') && !shared.has(f),
    )
    // The codecs of model requests and those of realtime sessions (over a WebSocket).
    const codecs = [...MODEL_CODECS, ...SESSION_CODECS]
    expect(codecFiles.map((f) => f.replace(/\.ts$/, '')).sort()).toEqual(codecs.map((c) => c.name).sort())
    expect(new Set(codecs.map((c) => c.name)).size).toBe(codecs.length)
  })
})
