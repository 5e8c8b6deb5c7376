import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { RUNNER_OPTIONS, type RunnerOption, renderOptionTable } from './option-table.js'
import { type ConfigSource, RUNNER_OPTION_NAMES, resolveTapeConfig } from './tape-config.js'

const DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url))
const SOURCE: ConfigSource = {
  where: 'the agentTape() options',
  extraOptions: ['summary'],
  secretStrings: 'literal',
  patternFix: 'Write a string or a RegExp',
}
const OPTIONS = Object.entries(RUNNER_OPTIONS) as [string, RunnerOption<unknown, unknown>][]

/** Every generated option table in docs/*.md: the text between its markers. */
function docTables(): { file: string; table: string }[] {
  const found: { file: string; table: string }[] = []
  for (const file of readdirSync(DOCS).filter((name) => name.endsWith('.md'))) {
    const text = readFileSync(`${DOCS}${file}`, 'utf8')
    for (const match of text.matchAll(/<!-- runner-options:[^>]*-->\n([\s\S]*?)\n<!-- \/runner-options -->/g))
      found.push({ file, table: match[1]! })
  }
  return found
}

describe('the runner option table', () => {
  it('is the option table of the docs, so the docs cannot drift from the options', () => {
    const tables = docTables()
    expect(tables.map((t) => t.file)).toContain('vitest.md')
    for (const { file, table } of tables) {
      expect(table, `docs/${file}: paste renderOptionTable()'s output between the markers`).toBe(
        renderOptionTable(),
      )
    }
  })

  it('lists every option once in the docs, with its default and a line that says what it does', () => {
    const rows = renderOptionTable().split('\n').slice(2)
    expect(rows.map((row) => row.split('|')[1]!.trim())).toEqual(RUNNER_OPTION_NAMES.map((n) => `\`${n}\``))
    for (const [name, spec] of OPTIONS) {
      expect(spec.doc, name).toMatch(/^\S.*\.$/)
      expect(spec.doc, `${name}: a table cell cannot hold a pipe`).not.toContain('|')
      // An option left out of the config when unwritten shows what that means instead.
      if (spec.default === undefined) expect(spec.shownDefault, name).toBeTruthy()
    }
  })

  it('gives each unwritten option its default, and leaves out those without one', () => {
    const config = resolveTapeConfig({}, SOURCE) as Record<string, unknown>
    for (const [name, spec] of OPTIONS) {
      if (spec.default === undefined) expect(config, name).not.toHaveProperty(name)
      else expect(config[name], name).toEqual(spec.default)
    }
    expect(Object.keys(config)).toEqual(
      RUNNER_OPTION_NAMES.filter((n) => RUNNER_OPTIONS[n as 'mode'].default !== undefined),
    )
  })

  it('gives every config its own copy of a default, so changing one config leaves the next alone', () => {
    const first = resolveTapeConfig({}, SOURCE)
    first.modelEndpoints.push('http://127.0.0.1:4010')
    first.ignore.push('body.id')
    const second = resolveTapeConfig(undefined, SOURCE)
    expect(second.modelEndpoints).toEqual([])
    expect(second.ignore).toEqual([])
  })

  it('refuses an unknown option with the closest name and every known one, in the table order', () => {
    expect(() => resolveTapeConfig({ viewdir: 'views', strictHarnes: true }, SOURCE)).toThrow(
      `[agent-tape] Unknown options "viewdir" (did you mean "viewDir"?), "strictHarnes" (did you mean "strictHarness"?) in the agentTape() options: agent-tape would ignore it, and the run would not do what the option asks. Use one of: ${[...RUNNER_OPTION_NAMES, 'summary'].join(', ')}.`,
    )
    expect(RUNNER_OPTION_NAMES.slice(0, 3)).toEqual(['cassetteDir', 'mode', 'modelEndpoints'])
  })

  it('checks the options in the table order: the first bad one is the one reported', () => {
    expect(() => resolveTapeConfig({ viewDir: true, cassetteDir: 5 }, SOURCE)).toThrow(
      '[agent-tape] Invalid option cassetteDir in the agentTape() options: it must be a folder name, got 5. Write cassetteDir: "__cassettes__".',
    )
    expect(() => resolveTapeConfig({ childProcesses: 'no', budget: { steps: -1 } }, SOURCE)).toThrow(
      'Invalid option budget.steps in the agentTape() options',
    )
  })

  it.each([
    [{ mode: 'bogus' }, 'Unknown agent-tape mode "bogus" (from mode in the agentTape() options)'],
    [
      { harness: [5] },
      'Invalid option harness[0] in the agentTape() options: it must be a path, got 5. Write harness: ["src/agent"].',
    ],
    [
      { modelEndpoints: [{}] },
      'Invalid option modelEndpoints[0] in the agentTape() options: it must be a string or a RegExp, got {} (a RegExp sent as JSON arrives as {}). Write a string or a RegExp.',
    ],
    [
      { redactors: [{ name: 'e', pattern: '(' }] },
      'Invalid option redactors[0].pattern in the agentTape() options: it must be a valid RegExp source (Invalid regular expression: /(/g: Unterminated group). Correct the pattern.',
    ],
    [
      { viewDir: ' ' },
      'Invalid option viewDir in the agentTape() options: it must be a folder path, got " ". Write viewDir: "agent-tape-views".',
    ],
    [
      { allowHosts: {} },
      'Invalid option allowHosts in the agentTape() options: it must be an array, got {} (a RegExp sent as JSON arrives as {}). Write allowHosts: [ … ].',
    ],
  ])('refuses %j with its whole message', (options, message) => {
    expect(() => resolveTapeConfig(options, SOURCE)).toThrow(message)
  })

  it('resolves a written option through its check, to data that survives JSON', () => {
    const config = resolveTapeConfig(
      {
        harness: ['src/agent'],
        strictHarness: true,
        redactors: [{ name: 'email', pattern: /@\w+/g, replacement: '[email]' }],
        normalizers: [{ name: 'day', pattern: '\\d{4}', kinds: ['llm'], replacement: '<y>' }],
        allowSecrets: ['sk-test', /fake-\d+/],
        timing: { speed: 4 },
      },
      SOURCE,
    )
    expect(JSON.parse(JSON.stringify(config))).toEqual(config)
    expect(config).toMatchObject({
      harness: ['src/agent'],
      strictHarness: true,
      redactors: [{ name: 'email', pattern: { source: '@\\w+', flags: 'g' }, replacement: '[email]' }],
      normalizers: [
        { name: 'day', kinds: ['llm'], pattern: { source: '\\d{4}', flags: 'g' }, replacement: '<y>' },
      ],
      allowSecrets: ['sk-test', { source: 'fake-\\d+', flags: '' }],
      timing: { speed: 4 },
    })
  })
})
