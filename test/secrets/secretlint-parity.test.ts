import { SecretScanner } from '@agent-tape/core/internal'
import { lintSource } from '@secretlint/core'
import { rules } from '@secretlint/secretlint-rule-preset-recommend'
import { expect, it } from 'vitest'
import { SECRET_CORPUS } from '../support/secret-corpus.js'

/**
 * agent-tape keeps its own rule table (docs/decisions/0007-secret-rules.md). This test keeps it in step with
 * secretlint's recommended preset, the JavaScript ecosystem's maintained scanner: every rule of
 * the preset is listed here with corpus samples of its shape, secretlint must flag each sample
 * (so the sample really has that shape) and agent-tape must too. A rule added upstream fails the
 * first test until it has samples here and a rule in packages/core/src/secrets/rules.ts.
 */
const COVERED: Record<string, string[]> = {
  aws: ['aws-secret-access-key'],
  gcp: ['gcp-service-account-json'],
  privatekey: ['pem-rsa-private-key', 'pem-private-key', 'pem-openssh-private-key'],
  npm: ['npm-token'],
  basicauth: ['https-url-password'],
  slack: ['slack-bot-token', 'slack-app-token', 'slack-webhook-url'],
  sendgrid: ['sendgrid-key'],
  shopify: ['shopify-token'],
  stripe: ['stripe-live-key', 'stripe-restricted-key'],
  github: ['github-classic-token', 'github-oauth-token', 'github-fine-grained-token'],
  gitlab: ['gitlab-token'],
  grafana: ['grafana-token'],
  openai: ['openai-legacy-key', 'openai-project-key', 'openai-service-account-key', 'openai-admin-key'],
  anthropic: ['anthropic-key'],
  groq: ['groq-key'],
  huggingface: ['huggingface-token'],
  linear: ['linear-key'],
  notion: ['notion-token'],
  '1password': ['onepassword-service-token'],
  'database-connection-string': ['postgres-url-password', 'mysql-url-password', 'mongodb-url-password'],
  'hashicorp-vault': ['vault-service-token', 'vault-batch-token'],
  vercel: ['vercel-token'],
  databricks: ['databricks-token'],
  docker: ['docker-token'],
  figma: ['figma-token'],
  cloudflare: ['cloudflare-token'],
  tailscale: ['tailscale-key'],
}
// Not a secret shape: it honours `secretlint-disable` comments in the scanned text.
const NOT_SHAPES = ['filter-comments']
const PREFIX = '@secretlint/secretlint-rule-'

it('lists every rule of the installed secretlint preset', () => {
  const upstream = rules.map((r) => r.meta.id.replace(PREFIX, '')).sort()
  expect(upstream).toEqual([...Object.keys(COVERED), ...NOT_SHAPES].sort())
})

it.each(Object.entries(COVERED))(
  'finds every sample of secretlint rule %s, as secretlint does',
  async (id, samples) => {
    const rule = rules.find((r) => r.meta.id === `${PREFIX}${id}`)!
    for (const name of samples) {
      const sample = SECRET_CORPUS.find((s) => s.id === name)
      if (!sample) throw new Error(`no corpus sample named ${name}`)
      const result = await lintSource({
        source: { content: sample.text, filePath: `${name}.json`, ext: '.json', contentType: 'text' },
        options: { config: { rules: [{ id: rule.meta.id, rule }] } },
      })
      expect(result.messages.length, `secretlint ${id} on ${name}`).toBeGreaterThan(0)
      const found = new SecretScanner().matches(sample.text)
      expect(found.length, `agent-tape on ${name}`).toBeGreaterThan(0)
      const redacted = new SecretScanner().redactText(sample.text)
      expect(redacted.includes(sample.secret), `agent-tape redacts ${name} whole`).toBe(false)
    }
  },
)
