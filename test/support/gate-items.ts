import { ORDINARY_TEXTS } from './ordinary-texts.js'
import {
  generator,
  LOOK_ALIKES,
  leakedFragments,
  SECRET_CORPUS,
  shownBeyondPreview,
} from './secret-corpus.js'
import { printedPieces, SECRET_FORMS, type SecretForm, writtenPieces } from './secret-forms.js'

/**
 * One value the gate is measured on: a secret of the corpus (a shape, or a form a program reads
 * a secret in) or an ordinary text, with the checks that say whether a written file or a printed
 * text gives the secret away.
 */
export interface GateItem {
  id: string
  kind: 'secret' | 'ordinary'
  /** `shape` for a sample of the secret corpus, else the form's class, or the ordinary text's category. */
  class: string
  /** The value as the places carry it (`form.value`); a form with no secret for an ordinary text. */
  form: SecretForm
  env: Record<string, string>
  /** 16-character pieces of the secret a written file holds. */
  written(fileText: string): string[]
  /** Pieces of the secret longer than 4 characters that a printed text shows. */
  printed(text: string): string[]
}

const none = () => []

/**
 * Five hex digits turn up by chance among the keys and hashes of a page that shows many
 * decisions (a `tool:62fafc178f9fdd84` key holds `9fdd8`); six do not. A piece of five hex
 * digits counts only when six digits of the secret around it are shown.
 */
function beyondChance(pieces: string[], secrets: readonly string[], text: string): string[] {
  return pieces.filter((piece) => {
    if (!/^[0-9a-f]{5}$/.test(piece)) return true
    return secrets.some((secret) => {
      for (let at = secret.indexOf(piece); at >= 0; at = secret.indexOf(piece, at + 1)) {
        if (at > 0 && text.includes(secret.slice(at - 1, at + 5))) return true
        if (at + 6 <= secret.length && text.includes(secret.slice(at, at + 6))) return true
      }
      return false
    })
  })
}

/** Every secret of the corpus: each sample of a shape, and each form (read through before the corpus grows). */
export function secretItems(): GateItem[] {
  const samples = SECRET_CORPUS.map(
    (sample): GateItem => ({
      id: sample.id,
      kind: 'secret',
      class: 'shape',
      form: { id: sample.id, class: 'named', value: sample.text, secrets: [], encoded: [] },
      env: {},
      written: (text) => leakedFragments(text, sample),
      printed: (text) => beyondChance(shownBeyondPreview(text, sample), [sample.secret], text),
    }),
  )
  const forms = SECRET_FORMS.map(
    (form): GateItem => ({
      id: form.id,
      kind: 'secret',
      class: form.class,
      form,
      env: form.env ?? {},
      written: (text) => writtenPieces(text, form),
      printed: (text) =>
        beyondChance(
          printedPieces(text, form),
          form.secrets.map((s) => s.value),
          text,
        ),
    }),
  )
  return [...samples, ...forms]
}

/**
 * A secret no scan can know (random letters and digits under no name, in prose): every place
 * that carries values writes or prints it, which shows that each place does carry the values
 * put in it.
 */
export function controlItem(): GateItem {
  const secret = generator(77).alnum(20)
  const sample = { id: 'control', secret, text: `the word is ${secret} today`, prefix: 0 }
  return {
    id: 'control',
    kind: 'secret',
    class: 'control',
    form: { id: 'control', class: 'named', value: sample.text, secrets: [], encoded: [] },
    env: {},
    written: (text) => leakedFragments(text, sample),
    printed: (text) => shownBeyondPreview(text, sample),
  }
}

/** A coding agent's environment, as the look-alikes are recorded with (see tape-places.test.ts). */
const LOOK_ALIKE_ENV = { OLDPWD: '/tmp', HOME: '/root', GOOGLE_APPLICATION_CREDENTIALS: '/secrets/sa.json' }

/** Every ordinary text: what a run carries every day, and the look-alikes of secrets. */
export function ordinaryItems(): GateItem[] {
  const texts = ORDINARY_TEXTS.map(
    (text): GateItem => ({
      id: text.id,
      kind: 'ordinary',
      class: text.category,
      form: { id: text.id, class: 'named', value: text.value, secrets: [], encoded: [] },
      env: text.env ?? {},
      written: none,
      printed: none,
    }),
  )
  const lookAlikes = LOOK_ALIKES.map(
    (l): GateItem => ({
      id: `look-alike: ${l.id}`,
      kind: 'ordinary',
      class: 'look-alike',
      form: { id: l.id, class: 'named', value: l.text, secrets: [], encoded: [] },
      env: LOOK_ALIKE_ENV,
      written: none,
      printed: none,
    }),
  )
  return [...texts, ...lookAlikes]
}

/**
 * The items in groups that can share one run: secrets all together (their environments merged,
 * each names its own variables), ordinary texts by environment (a secret's environment would
 * make an ordinary text's words secret).
 */
export function runGroups(items: readonly GateItem[]): { env: Record<string, string>; items: GateItem[] }[] {
  const groups: { kind: GateItem['kind']; env: Record<string, string>; items: GateItem[] }[] = []
  const fits = (group: (typeof groups)[number], item: GateItem) =>
    group.kind === item.kind &&
    (item.kind === 'secret'
      ? Object.entries(item.env).every(([name, value]) => (group.env[name] ?? value) === value)
      : JSON.stringify(group.env) === JSON.stringify(item.env))
  for (const item of items) {
    let group = groups.find((g) => fits(g, item))
    if (!group) {
      group = { kind: item.kind, env: {}, items: [] }
      groups.push(group)
    }
    Object.assign(group.env, item.env)
    group.items.push(item)
  }
  return groups.map(({ env, items }) => ({ env, items }))
}

/** The value as text, for places that carry text. */
export const textOf = (item: GateItem) =>
  typeof item.form.value === 'string' ? item.form.value : JSON.stringify(item.form.value)
