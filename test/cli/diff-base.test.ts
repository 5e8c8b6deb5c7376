import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SecretScanner } from '@agent-tape/core/internal'
import { type FakeProvider, startFakeProvider } from '@agent-tape/fake-provider'
import type { Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { RUNNERS, type Runner, type RunnerProject, testFile } from '../runners/runners.js'
import { readReadmeSection } from '../support/readme-section.js'
import { launchChromium } from '../view/support/chromium.js'
import { runCli } from './support/cli.js'
import { markdownToHtml } from './support/markdown.js'
import { recordCassette } from './support/record.js'

// `agent-tape diff --base`: what a pull request changed in its cassettes, read from a real git
// repository around a real Vitest or Jest project. The base commit records five tapes; the head
// edits a question (re-recorded), changes a tool's result (re-recorded), lets the model answer
// the same request differently (the fake provider's script changed, re-recorded), removes a test
// (its cassette left obsolete), adds a test (a new cassette) and deletes a cassette.

const FILE = 'test/weather.test.ts'
const CASSETTES = 'test/__cassettes__/weather.test.ts'

function tapes(runner: Runner, head: boolean): string {
  const lines = [
    "import { ask, runAgent } from '../src/agent'",
    'const tools = (time: string) => ({',
    "  get_weather: async ({ city }: { city: string }) => '18°C and light rain in ' + city,",
    "  get_time: async ({ city }: { city: string }) => 'It is ' + time + ' in ' + city,",
    '})',
    "it.tape('prompt', async ({ tape }) => {",
    `  await runAgent('${head ? 'Tell me: what is the weather in Paris?' : 'What is the weather in Paris?'}', tape.tools(tools('14:05')))`,
    '})',
    "it.tape('tool-result', async ({ tape }) => {",
    `  await runAgent('What is the weather in Oslo?', tape.tools(tools('${head ? '16:30' : '14:05'}')))`,
    '})',
    "it.tape('answer', async () => {",
    "  await ask('Is it cheap?')",
    '})',
    ...(head ? [] : ["it.tape('gone', async () => {", "  await ask('Gone?')", '})']),
    "it.tape('dropped', async () => {",
    "  await ask('Dropped?')",
    '})',
    ...(head ? ["it.tape('added', async () => {", "  await ask('New?')", '})'] : []),
  ]
  return testFile(runner, lines)
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    },
  })
}

const docs = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')

/** The output docs/cli.md shows after `npx agent-tape <command>` in a `sh` block, in a block of `lang`. */
function documented(command: string, lang: string): string {
  const at = docs.indexOf(`\`\`\`sh\nnpx agent-tape ${command}\n\`\`\`\n\n\`\`\`${lang}\n`)
  if (at === -1) throw new Error(`docs/cli.md shows no ${lang} output of agent-tape ${command}`)
  const from = docs.indexOf(`\`\`\`${lang}\n`, at) + lang.length + 4
  return docs.slice(from, docs.indexOf('```', from))
}

/** What differs between two runs of the scenario: recording times, commits, the agent-tape version. */
function maskRun(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
    .replace(/\(([0-9a-f]{12})\\?\)/g, '(<commit>)')
    .replace(/agent-tape \d+\.\d+\.\d+\S*/g, 'agent-tape <version>')
    .replace(/<code>\d+\.\d+\.\d+[^<]*<\/code>/g, '<code><version></code>')
}

/** Markdown tables with their cells unpadded: the docs' formatter aligns the columns, to the same table. */
function alignedTables(markdown: string): string {
  return markdown.replace(/^\|.*\|$/gm, (row) =>
    row
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/^-{3,}$/, '---'))
      .join(' | ')
      .trim(),
  )
}

const KEY = `sk-proj-${'Rt4'.repeat(12)}`

let browser: Browser | undefined
afterAll(async () => {
  await browser?.close()
})

describe.concurrent.each(RUNNERS)('$name', { timeout: 120_000 }, (runner) => {
  let provider: FakeProvider
  let project: RunnerProject
  /** How the model answers: changed between base and head. */
  let head = false

  const rerecord = (names: string) =>
    project.run(`${runner.rerecord.start} ${FILE} -t '^(${names})$' ${runner.rerecord.end}`, {
      FAKE_PROVIDER_URL: provider.url,
    })
  const diff = (...args: string[]) => runCli(['diff', ...args], project.dir)

  beforeAll(async () => {
    provider = await startFakeProvider({
      seed: `${runner.name}-diff-base`,
      reply: ({ body }) => {
        const messages = (body.messages ?? []) as { role: string; content?: unknown }[]
        const question = String(messages.find((m) => m.role === 'user')?.content ?? '')
        if (!body.tools)
          return {
            text: `${head ? 'reply' : 'echo'}: ${question}`,
            usage: { inputTokens: 10, outputTokens: 4 },
          }
        const city = /in (\w+)\?/.exec(question)?.[1] ?? 'Nowhere'
        const seen = messages.filter((m) => m.role === 'tool').length
        if (seen === 0) return { toolCalls: [{ name: 'get_weather', args: { city } }] }
        // At head, asked with "Tell me", the model answers without asking for the time.
        if (seen === 1 && !question.startsWith('Tell me'))
          return { toolCalls: [{ name: 'get_time', args: { city } }] }
        return { text: `18°C in ${city}.`, usage: { inputTokens: 120, outputTokens: 14 } }
      },
    })
    project = runner.project()
    project.write('.gitignore', 'node_modules\n.agent-tape-cache\n')
    project.write(FILE, tapes(runner, false))
    const base = await project.runTests(FILE, { FAKE_PROVIDER_URL: provider.url })
    expect(base.code, base.output).toBe(0)
    git(project.dir, 'init', '-q', '-b', 'main')
    git(project.dir, 'add', '.')
    git(project.dir, 'commit', '-q', '-m', 'base')
    git(project.dir, 'checkout', '-q', '-b', 'change')
    // The head: the test file edited, the model's answers changed, what changed re-recorded.
    project.write(FILE, tapes(runner, true))
    project.remove(`${CASSETTES}/dropped.jsonl`)
    head = true
    const rerecorded = await rerecord('prompt|tool-result|answer|added')
    expect(rerecorded.code, rerecorded.output).toBe(0)
  }, 90_000)

  afterAll(async () => {
    await provider.close()
    project.dispose()
  })

  it.sequential('lists each cassette the branch added, changed, removed or left obsolete; for a changed one the first difference, its words, tool calls, totals and provenance', async () => {
    const { code, stdout, stderr } = await diff('--base', 'main')
    expect(stderr).toBe('')
    expect(code).toBe(1)
    expect(maskRun(stdout)).toBe(maskRun(documented('diff --base main', 'text')))
    // What the scenario changed, as the report says it.
    expect(stdout).toContain(
      `changed   ${CASSETTES}/prompt.jsonl\n    first      step 1, #1 model request (gpt-4o)\n    in         body.messages[1].content: [-What-]{+Tell me: what+} is the weather in Paris?`,
    )
    expect(stdout).toContain('    tool calls - get_time {"city":"Paris"}\n    steps      3 → 2\n')
    expect(stdout).toContain(
      `    first      step 2, #4 tool "get_time"\n    out        result: "It is 14:05 in Oslo" → "It is 16:30 in Oslo"\n    then       step 3, #5 model request (gpt-4o)\n    in         body.messages[5].content: It is [-14-]{+16+}:[-05-]{+30+} in Oslo`,
    )
    expect(stdout).toContain('    out        text: "echo: Is it cheap?" → "reply: Is it cheap?"')
    expect(stdout).toContain(`added     ${CASSETTES}/added.jsonl`)
    expect(stdout).toContain(`removed   ${CASSETTES}/dropped.jsonl`)
    expect(stdout).toContain(
      `obsolete  ${CASSETTES}/gone.jsonl\n    why        ${FILE} declares no tape "gone"`,
    )
    expect(stdout).toMatch(/\n6 cassettes: 3 changed, 1 added, 1 removed, 1 obsolete\n$/)
  })

  it.sequential('writes Markdown whose table and details a browser renders cell by cell', async () => {
    const { code, stdout } = await diff('--base', 'main', '--markdown')
    expect(code).toBe(1)
    expect(alignedTables(maskRun(stdout))).toBe(
      alignedTables(maskRun(documented('diff --base main --markdown', 'markdown'))),
    )
    browser ??= await launchChromium()
    const page = await browser.newPage()
    try {
      await page.setContent(`<!doctype html><meta charset="utf-8"><body>${markdownToHtml(stdout)}</body>`)
      const rendered = await page.evaluate(() => ({
        heading: document.querySelector('h3')?.textContent,
        rows: [...document.querySelectorAll('body > table tr')].map((tr) =>
          [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent),
        ),
        summaries: [...document.querySelectorAll('details > summary')].map((s) => s.textContent),
        removed: [...document.querySelectorAll('details del')].map((d) => d.textContent),
        inserted: [...document.querySelectorAll('details ins')].map((d) => d.textContent),
        calls: [...document.querySelectorAll('details li')].map((li) => li.textContent),
        strong: document.querySelectorAll('strong, em, script, a').length,
      }))
      expect(rendered.heading).toMatch(/^Cassettes changed from main \([0-9a-f]{12}\) to the working tree$/)
      expect(rendered.rows).toEqual([
        ['Cassette', 'Status', 'Steps', 'Tokens', 'Cost'],
        [`${CASSETTES}/answer.jsonl`, 'changed', '1', '14', '$0.0000039'],
        [`${CASSETTES}/prompt.jsonl`, 'changed', '3 → 2', '431 → 246 (-43%)', '$0.0013 → $0.00077'],
        [`${CASSETTES}/tool-result.jsonl`, 'changed', '3', '431', '$0.0013'],
        [`${CASSETTES}/added.jsonl`, 'added', '— → 1', '— → 14', '— → $0.0000039'],
        [`${CASSETTES}/dropped.jsonl`, 'removed', '1 → —', '14 → —', '$0.0000039 → —'],
        [`${CASSETTES}/gone.jsonl`, `obsolete: ${FILE} declares no tape "gone"`, '1', '14', '$0.0000039'],
      ])
      expect(rendered.summaries).toEqual([
        `${CASSETTES}/answer.jsonl: first difference at step 1, #1 model request (gpt-4o-mini)`,
        `${CASSETTES}/prompt.jsonl: first difference at step 1, #1 model request (gpt-4o)`,
        `${CASSETTES}/tool-result.jsonl: first difference at step 2, #4 tool "get_time"`,
      ])
      expect(rendered.removed).toEqual(['What', '14', '05'])
      expect(rendered.inserted).toEqual(['Tell me: what', '16', '30'])
      expect(rendered.calls).toEqual(['removed get_time {"city":"Paris"}'])
      // Nothing in a value became markup: no emphasis from `__cassettes__`, no link, no script.
      expect(rendered.strong).toBe(0)
    } finally {
      await page.close()
    }
  })

  it.sequential('prints the same findings as JSON', async () => {
    const { code, stdout } = await diff('--base', 'main', '--json')
    expect(code).toBe(1)
    const report = JSON.parse(stdout)
    expect(report.base).toEqual({ ref: 'main', commit: git(project.dir, 'rev-parse', 'main').trim() })
    expect(report.head).toEqual({})
    expect(report.counts).toEqual({ changed: 3, added: 1, removed: 1, obsolete: 1 })
    const prompt = report.cassettes.find((c: { path: string }) => c.path.endsWith('/prompt.jsonl'))
    expect(prompt.first).toMatchObject({
      seq: 1,
      step: 1,
      label: 'model request (gpt-4o)',
      status: 'changed',
    })
    expect(prompt.first.input[0]).toEqual({
      path: 'body.messages[1].content',
      words: [
        [
          { text: 'What', change: 'removed' },
          { text: 'Tell me: what', change: 'added' },
          { text: ' is the weather in Paris?' },
        ],
      ],
    })
    expect(prompt.toolCalls).toEqual({ added: [], removed: ['get_time {"city":"Paris"}'] })
    expect(prompt.before).toMatchObject({ steps: 3, models: ['gpt-4o'], tokens: { input: 404, output: 27 } })
    expect(prompt.after).toMatchObject({ steps: 2, models: ['gpt-4o'] })
    expect(prompt.diff.counts).toMatchObject({ changed: 2, removed: 2 })
  })

  it.sequential('compares two commits with --head, limits to the paths given, and finds nothing between a commit and itself', async () => {
    const workingTree = (await diff('--base', 'main')).stdout
    git(project.dir, 'add', '-A')
    git(project.dir, 'commit', '-q', '-m', 'head')
    const commits = await diff('--base', 'main', '--head', 'change')
    expect(commits.code).toBe(1)
    const [title, ...rest] = commits.stdout.split('\n')
    expect(title).toBe(
      `Cassettes changed from main (${git(project.dir, 'rev-parse', 'main').slice(0, 12)}) to change (${git(project.dir, 'rev-parse', 'change').slice(0, 12)})`,
    )
    expect(rest.join('\n')).toBe(workingTree.split('\n').slice(1).join('\n'))
    const one = await diff('--base', 'main', '--head', 'change', '**/answer.jsonl')
    expect(one.stdout).toContain('1 cassette: 1 changed, 0 added, 0 removed, 0 obsolete')
    // From a folder of the repository, reached through a link: paths relative to it, only its cassettes.
    const link = join(mkdtempSync(join(tmpdir(), 'agent-tape-diff-link-')), 'project')
    symlinkSync(project.dir, link)
    const inside = await runCli(['diff', '--base', 'main', '--head', 'change'], join(link, 'test'))
    expect(inside.stdout).toContain('changed   __cassettes__/weather.test.ts/prompt.jsonl\n')
    expect(inside.stdout).toContain('6 cassettes: 3 changed, 1 added, 1 removed, 1 obsolete')
    const elsewhere = await runCli(['diff', '--base', 'main', '--head', 'change'], join(link, 'src'))
    expect(elsewhere.stdout).toContain('0 cassettes: 0 changed, 0 added, 0 removed, 0 obsolete')
    expect(await diff('--base', 'change')).toEqual({
      code: 0,
      stderr: '',
      stdout: `Cassettes changed from change (${git(project.dir, 'rev-parse', 'change').slice(0, 12)}) to the working tree\n\n0 cassettes: 0 changed, 0 added, 0 removed, 0 obsolete\n`,
    })
  })

  it.sequential("runs the README's pull-request job: the summary goes to GITHUB_STEP_SUMMARY, and the step passes", async () => {
    const ci = readReadmeSection('In CI').section
    const workflow = parse(/<!-- readme-ci -->\n```yaml\n([\s\S]*?)```/.exec(ci)![1]!) as {
      jobs: Record<
        string,
        { if?: string; steps: { uses?: string; with?: Record<string, unknown>; run?: string }[] }
      >
    }
    const job = workflow.jobs['tape-changes']!
    expect(job.if).toBe("github.event_name == 'pull_request'")
    expect(job.steps[0]).toEqual({ uses: 'actions/checkout@v4', with: { 'fetch-depth': 0 } })
    const step = job.steps.at(-1)!.run!
    const baseRef = '$' + '{{ github.base_ref }}'
    expect(step).toContain(`--base origin/${baseRef}`)
    // As a pull request's clone has it: the base branch under origin/.
    git(project.dir, 'update-ref', 'refs/remotes/origin/main', 'main')
    const summary = join(mkdtempSync(join(tmpdir(), 'agent-tape-diff-base-')), 'summary.md')
    writeFileSync(summary, '')
    const run = await project.run(step.replace(baseRef, 'main'), {
      CI: 'true',
      GITHUB_STEP_SUMMARY: summary,
    })
    expect(run.code, run.output).toBe(0)
    const written = readFileSync(summary, 'utf8')
    expect(written, run.output).toMatch(
      /^### Cassettes changed from origin\/main \\\([0-9a-f]{12}\\\) to the working tree\n/,
    )
    const expected = (await diff('--base', 'main', '--markdown')).stdout
    expect(written.split('\n').slice(1).join('\n')).toBe(expected.split('\n').slice(1).join('\n'))
  })

  it.sequential('masks a key placed in a prompt in the text, the Markdown and the JSON alike', async () => {
    const path = `${CASSETTES}/prompt.jsonl`
    const cassette = project.read(path)
    expect(cassette).toContain('Tell me: what is the weather in Paris?')
    project.write(
      path,
      cassette.replaceAll(
        'Tell me: what is the weather in Paris?',
        `Tell me: what is the weather in Paris? My key is ${KEY}`,
      ),
    )
    const scanner = new SecretScanner()
    for (const format of [[], ['--markdown'], ['--json']]) {
      const { code, stdout } = await diff('--base', 'main', ...format)
      expect(code).toBe(1)
      expect(stdout).toContain('[REDACTED:')
      expect(stdout).not.toContain(KEY.slice(8, 24))
      expect(scanner.matches(stdout)).toEqual([])
    }
  })

  it.sequential('a ref that names no commit is a usage error', async () => {
    expect(await diff('--base', 'no-such-branch')).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining(
        `--base no-such-branch names no commit of the repository at ${git(project.dir, 'rev-parse', '--show-toplevel').trim()}`,
      ),
    })
  })
})

it('outside a git repository, --base is a usage error; --head, --markdown or one file without it too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-no-repo-'))
  const outside = await runCli(['diff', '--base', 'main'], dir)
  expect(outside.code).toBe(2)
  expect(outside.stderr).toContain(
    `--base compares two commits of a git repository, and ${dir} is not in one`,
  )
  expect(outside.stderr).toContain(
    'Run it inside the repository, or compare two cassette files: agent-tape diff <a> <b>',
  )
  for (const [args, why] of [
    [['--head', 'HEAD', 'a.jsonl', 'b.jsonl'], '--head is given without --base'],
    [
      ['--markdown', 'a.jsonl', 'b.jsonl'],
      '--markdown reports a comparison of two refs, and no --base is given',
    ],
    [['a.jsonl'], 'expected <a> <b>, got 1 argument'],
  ] as const) {
    const result = await runCli(['diff', ...args], dir)
    expect(result.code, args.join(' ')).toBe(2)
    expect(result.stderr).toContain(why)
  }
})

it('escapes what paths and prompts hold: the browser shows them as text, in the table and in the details', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-diff-escape-'))
  const hostile = 'test/a|b <i>x<i> *y* [z](u) `c` $d$ __e__.test.ts'
  const prompt = 'Say | <script>alert(1)</script> **hi** `now` [x](y) $z$ &amp; _e_'
  const record = (file: string, content: string, sdk = '6.1.0') =>
    recordCassette(dir, file, {
      tape: { sdks: { '@scope/sdk': sdk } },
      reply: [{ text: 'ok', usage: { inputTokens: 10, outputTokens: 4 } }],
      run: (c) =>
        c.openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
    })
  const gone = `test/__cassettes__/${hostile.slice('test/'.length)}/t.jsonl`
  await record(gone, 'Hello')
  await record('test/__cassettes__/ok.test.ts/p.jsonl', 'Say hi')
  await record('test/__cassettes__/ok.test.ts/s.jsonl', 'Same')
  writeFileSync(join(dir, hostile), "it.tape('t', async () => {})\n")
  writeFileSync(join(dir, 'test/ok.test.ts'), "it.tape('p', async () => {})\nit.tape('s', async () => {})\n")
  git(dir, 'init', '-q', '-b', 'main')
  // A diff driver for cassettes (as agent-tape setup-git writes one) changes nothing read from git.
  writeFileSync(join(dir, '.gitattributes'), '*.jsonl diff=transcript\n')
  git(dir, 'config', 'diff.transcript.textconv', 'echo not a cassette')
  git(dir, 'add', '.')
  git(dir, 'commit', '-q', '-m', 'base')
  git(dir, 'rm', '-q', hostile)
  await record('test/__cassettes__/ok.test.ts/p.jsonl', prompt, '6.2.0')
  // Re-recorded with a newer SDK, to the same decisions: only its header changed.
  await record('test/__cassettes__/ok.test.ts/s.jsonl', 'Same', '6.2.0')

  const text = (await runCli(['diff', '--base', 'main'], dir)).stdout
  expect(text).toMatch(
    /changed {3}test\/__cassettes__\/ok\.test\.ts\/s\.jsonl\n {4}header {5}sdks\S*: "6\.1\.0" → "6\.2\.0"\n/,
  )
  expect(text).toMatch(
    /\n {4}before {5}gpt-4o-mini · @scope\/sdk 6\.1\.0 · agent-tape \S+ · recorded \S+\n {4}after {6}gpt-4o-mini · @scope\/sdk 6\.2\.0 · /,
  )
  const { code, stdout } = await runCli(['diff', '--base', 'main', '--markdown'], dir)
  expect(code).toBe(1)
  browser ??= await launchChromium()
  const page = await browser.newPage()
  try {
    await page.setContent(`<!doctype html><meta charset="utf-8"><body>${markdownToHtml(stdout)}</body>`)
    const rendered = await page.evaluate(() => ({
      rows: [...document.querySelectorAll('body > table tr')].map((tr) =>
        [...tr.querySelectorAll('td')].slice(0, 2).map((cell) => cell.textContent),
      ),
      input: document.querySelector('details pre')?.textContent,
      header: document.querySelectorAll('details pre')[1]?.textContent,
      sides: [...document.querySelectorAll('details table tr')].map((tr) =>
        [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent),
      ),
      injected: document.querySelectorAll('script, i, strong, em, a, b, math').length,
    }))
    expect(rendered.rows).toEqual([
      [],
      ['test/__cassettes__/ok.test.ts/p.jsonl', 'changed'],
      ['test/__cassettes__/ok.test.ts/s.jsonl', 'changed'],
      [gone, `obsolete: ${hostile} no longer exists`],
    ])
    expect(rendered.input).toBe(`in    body.messages[0].content: ${prompt}`)
    expect(rendered.header).toMatch(/^header sdks\S*: "6\.1\.0" → "6\.2\.0"$/)
    // The provenance of both recordings: the SDK versions from their headers, the model that answered.
    expect(rendered.sides).toContainEqual(['SDKs', '@scope/sdk 6.1.0', '@scope/sdk 6.2.0'])
    expect(rendered.sides).toContainEqual(['model', 'gpt-4o-mini', 'gpt-4o-mini'])
    expect(rendered.injected).toBe(0)
  } finally {
    await page.close()
  }
})
