import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { openTape } from '@agent-tape/core'
import { SecretScanner, secretEnvValues } from '@agent-tape/core/internal'
import { createFileStore } from '@agent-tape/core/node'
import { lintSource } from '@secretlint/core'
import { rules } from '@secretlint/secretlint-rule-preset-recommend'
import { expect, it } from 'vitest'
import { ORDINARY_TEXTS } from '../support/ordinary-texts.js'
import { createSecretChecks } from '../support/secret-checks.js'
import { LOOK_ALIKES, SECRET_CORPUS } from '../support/secret-corpus.js'
import { formText, SECRET_FORMS } from '../support/secret-forms.js'

/**
 * secretlint's recommended preset as an oracle over every text of the project's corpus: the
 * secret shapes, the forms they take, the ordinary texts and the look-alikes. Whatever it flags,
 * agent-tape must not write: recorded as a tool's arguments, the cassette holds none of the
 * flagged characters; returned as a tool's result, the write is refused. A rule added to the
 * preset upstream, or a form of the corpus secretlint sees and agent-tape does not, fails here.
 */
const { dir } = createSecretChecks('secretlint-oracle')
const store = createFileStore(dir)

const TEXTS: { id: string; text: string; env: Record<string, string> }[] = [
  ...SECRET_CORPUS.map((s) => ({ id: `shape ${s.id}`, text: s.text, env: {} })),
  ...SECRET_FORMS.map((f) => ({ id: `form ${f.id}`, text: formText(f), env: f.env ?? {} })),
  ...ORDINARY_TEXTS.map((o) => ({
    id: `ordinary ${o.id}`,
    text: typeof o.value === 'string' ? o.value : JSON.stringify(o.value),
    env: o.env ?? {},
  })),
  ...LOOK_ALIKES.map((l) => ({ id: `look-alike ${l.id}`, text: l.text, env: {} })),
]

/**
 * Texts secretlint flags that are not secrets, each with why: agent-tape writes them as they are,
 * and this list is checked to stay true (secretlint still flags each, agent-tape still keeps it).
 */
const NOT_SECRETS: Record<string, string> = {
  'ordinary sample-dsn':
    'the password of the URL is the placeholder `<password>`, as documentation writes it',
  'ordinary aws-env-example': "AWS's documentation keys, which spell EXAMPLE in their own characters",
  'ordinary git-credential-helper': 'a URL whose user and password are the stand-in words `user:token`',
}

/** What secretlint's recommended preset flags in `text`: the characters of each finding. */
async function flagged(text: string): Promise<string[]> {
  const result = await lintSource({
    source: { content: text, filePath: 'input.txt', ext: '.txt', contentType: 'text' },
    options: { config: { rules: rules.map((rule) => ({ id: rule.meta.id, rule })) } },
  })
  return result.messages.map((m) => text.slice(m.range[0], m.range[1])).filter((s) => s.length >= 8)
}

it('flags at least 45 texts of the corpus, so the oracle has something to say', async () => {
  let count = 0
  for (const { text } of TEXTS) if ((await flagged(text)).length > 0) count++
  expect(count).toBeGreaterThanOrEqual(45)
})

it.each(TEXTS.map((t) => [t.id, t] as const))(
  '%s: what secretlint flags, agent-tape does not write',
  async (id, t) => {
    const secrets = await flagged(t.text)
    if (id in NOT_SECRETS) {
      expect(secrets.length, `secretlint no longer flags ${id}: remove it from NOT_SECRETS`).toBeGreaterThan(
        0,
      )
      expect(new SecretScanner(secretEnvValues(t.env)).redactText(t.text)).toBe(t.text)
      return
    }
    if (secrets.length === 0) return
    const file = join(dir, `${id.replace(/\W+/g, '-')}.jsonl`)
    const tape = await openTape({
      id,
      cassettePath: file.slice(dir.length + 1),
      store,
      mode: 'update',
      env: t.env,
    })
    await tape.tool('configure', { settings: t.text }, () => 'ok')
    await tape.finish()
    const written = readFileSync(file, 'utf8')
    for (const secret of secrets) {
      expect(
        written.includes(secret),
        `${id}: secretlint flags ${secret.slice(0, 4)}…, and it was written`,
      ).toBe(false)
      expect(JSON.stringify(written).includes(JSON.stringify(secret).slice(1, -1))).toBe(false)
    }
    const scanner = new SecretScanner(secretEnvValues(t.env))
    expect(
      scanner.findInJson({ config: t.text }).length,
      `${id}: a result holding it is refused`,
    ).toBeGreaterThan(0)
  },
)
