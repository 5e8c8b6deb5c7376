import { expect, it } from 'vitest'
import { renderSummaryMarkdown, renderSummaryText, type TapeSummaryEntry } from './tape-summary.js'

const base = { inCassette: 0, replayed: 0, recorded: 0, missed: 0, unused: 0, written: false }
const entries: TapeSummaryEntry[] = [
  {
    ...base,
    test: 'test/agent.test.ts > issue-412',
    cassettePath: 'test/__cassettes__/agent.test.ts/issue-412.jsonl',
    mode: 'auto',
    action: 'replay',
    status: 'clean',
    inCassette: 17,
    replayed: 17,
    tokens: { input: 1200, output: 34, cached: 200 },
    usage: [
      {
        seq: 1,
        step: 1,
        model: 'gpt-4o-2024-08-06',
        api: 'openai-chat',
        input: 1000,
        cached: 200,
        output: 20,
      },
      { seq: 3, step: 2, model: 'gpt-4o-2024-08-06', api: 'openai-chat', input: 200, output: 14 },
    ],
    recordedAt: '2025-06-01T00:00:00.000Z',
  },
  {
    ...base,
    test: 'test/agent.test.ts > new-case',
    cassettePath: 'test/__cassettes__/agent.test.ts/new-case.jsonl',
    mode: 'auto',
    action: 'record',
    status: 'recorded',
    recorded: 5,
    written: true,
    usage: [{ seq: 1, step: 1, model: 'llama3.2', api: 'ollama', input: 50, output: 5 }],
    recordedAt: '2025-07-01T00:00:00.000Z',
  },
  {
    ...base,
    test: 'test/agent.test.ts > prompt-edit',
    cassettePath: 'test/__cassettes__/agent.test.ts/prompt-edit.jsonl',
    mode: 'auto',
    action: 'replay',
    status: 'diverged',
    inCassette: 4,
    replayed: 0,
    missed: 1,
    unused: 4,
  },
]

it('renders the text summary with per-tape counts and totals', () => {
  expect(renderSummaryText({ entries, obsolete: ['test/__cassettes__/agent.test.ts/old.jsonl'] })).toBe(
    [
      'agent-tape  3 tapes: 1 replayed cleanly, 1 recorded, 1 diverged',
      '',
      '  tape                              mode  result    replayed  recorded  missed  unused  tokens                 cost',
      '  test/agent.test.ts > issue-412    auto  clean        17/17         -       0       0   1,234              $0.0031',
      '  test/agent.test.ts > new-case     auto  recorded         -         5       -       -      55  no price (llama3.2)',
      '  test/agent.test.ts > prompt-edit  auto  diverged       0/4         -       1       -       -                    -',
      '',
      '  decisions: 17 replayed, 5 recorded, 1 missed, 0 unused',
      // gpt-4o at $2.50 per million input tokens, $1.25 cached, $10 output: 800 + 200 cached + 20
      // out is $0.00245, 200 + 14 out $0.00064. A local model has no price, never $0.
      '  replayed 1,234 tokens of recordings ≈ $0.0031 that this run did not spend (1,200 in, 200 of them cached, 34 out)',
      '  recorded 55 tokens, spent by this run (50 in, 5 out; no price for llama3.2)',
      '',
      '  Tokens by model:',
      '    gpt-4o-2024-08-06  2 decisions, 1,234 tokens (1,200 in, 200 of them cached, 34 out), $0.0031',
      '    llama3.2           1 decision, 55 tokens (50 in, 5 out), no price',
      '',
      '  Obsolete cassettes (1): no test uses them any more. Delete them, or prune them with -- --prune-cassettes:',
      '    test/__cassettes__/agent.test.ts/old.jsonl',
    ].join('\n'),
  )
})

it('renders the Markdown summary as a table', () => {
  const md = renderSummaryMarkdown({ entries: entries.slice(0, 1), obsolete: [] })
  expect(md).toBe(
    [
      '### agent-tape',
      '',
      '**1 tape: 1 replayed cleanly, 0 recorded, 0 diverged**',
      '',
      '| tape | mode | result | replayed | recorded | missed | unused | tokens | cost |',
      '| --- | --- | --- | --: | --: | --: | --: | --: | --: |',
      '| `test/agent.test.ts > issue-412` | auto | clean | 17/17 | - | 0 | 0 | 1,234 | $0.0031 |',
      '',
      'decisions: 17 replayed, 0 recorded, 0 missed, 0 unused  ',
      'replayed 1,234 tokens of recordings ≈ $0.0031 that this run did not spend (1,200 in, 200 of them cached, 34 out)  ',
      '',
      '  Tokens by model:',
      '- gpt-4o-2024-08-06  2 decisions, 1,234 tokens (1,200 in, 200 of them cached, 34 out), $0.0031',
      '',
    ].join('\n'),
  )
})

it('says nothing of tokens saved when nothing was replayed (a run that only recorded)', () => {
  const recorded = { ...entries[1]!, usage: undefined }
  const text = renderSummaryText({ entries: [recorded], obsolete: [] })
  expect(text).toBe(
    [
      'agent-tape  1 tape: 0 replayed cleanly, 1 recorded, 0 diverged',
      '',
      '  tape                           mode  result    replayed  recorded  missed  unused  tokens  cost',
      '  test/agent.test.ts > new-case  auto  recorded         -         5       -       -       -     -',
      '',
      '  decisions: 0 replayed, 5 recorded, 0 missed, 0 unused',
    ].join('\n'),
  )
  expect(renderSummaryMarkdown({ entries: [recorded], obsolete: [] })).not.toContain('tokens of')
})

it('prices a recording at its own date where prices changed, and reports each re-record against the cassette it replaced', () => {
  const usage = (input: number, output: number) => ({
    seq: 1,
    step: 1,
    model: 'o3',
    api: 'openai-responses',
    input,
    output,
  })
  // o3 cost $10/$40 per million tokens until 2025-06-10, $2/$8 from then on.
  const before = { decisions: 7, steps: 3, usage: [usage(1000, 152)], recordedAt: '2025-05-01T00:00:00.000Z' }
  const after = { decisions: 9, steps: 4, usage: [usage(1500, 190)], recordedAt: '2025-07-01T00:00:00.000Z' }
  const entry: TapeSummaryEntry = {
    ...entries[1]!,
    test: 'test/agent.test.ts > issue-412',
    cassettePath: 'test/__cassettes__/agent.test.ts/issue-412.jsonl',
    recorded: 9,
    usage: after.usage,
    recordedAt: after.recordedAt,
    rerecorded: { before, after },
  }
  const text = renderSummaryText({ entries: [entry], obsolete: [] })
  // $0.01 + $0.00608 before; $0.003 + $0.00152 after.
  expect(text).toContain(
    [
      '  Re-recorded (1), against the cassette each replaced:',
      '    issue-412: 7 → 9 decisions, 1,152 → 1,690 tokens (+47%), $0.016 → $0.0045',
    ].join('\n'),
  )
  expect(text).toContain('  recorded 1,690 tokens ≈ $0.0045, spent by this run (1,500 in, 190 out)')
  expect(renderSummaryMarkdown({ entries: [entry], obsolete: [] })).toContain(
    '- issue-412: 7 → 9 decisions, 1,152 → 1,690 tokens (+47%), $0.016 → $0.0045',
  )
})

it("lists each tape's warnings under the table, and prunes with the runner's own command", () => {
  const warned: TapeSummaryEntry[] = [
    {
      ...entries[1]!,
      warnings: ['[agent-tape] The harness of the recording differs from this one'],
    },
  ]
  const text = renderSummaryText({
    entries: warned,
    obsolete: ['test/__cassettes__/agent.test.ts/old.jsonl'],
    pruneCommand: 'npx agent-tape-jest --prune-cassettes',
  })
  expect(text).toContain(
    [
      '  Warnings (1):',
      '    test/agent.test.ts > new-case: [agent-tape] The harness of the recording differs from this one',
    ].join('\n'),
  )
  expect(text).toContain('prune them with npx agent-tape-jest --prune-cassettes:')
  expect(renderSummaryMarkdown({ entries: warned, obsolete: [] })).toContain(
    '- `test/agent.test.ts > new-case`: [agent-tape] The harness of the recording',
  )
})

it('lists the divergence views written, and links the step summary to the run artifacts on GitHub Actions', () => {
  const summary = {
    entries,
    obsolete: [],
    views: [
      {
        test: 'test/agent.test.ts > prompt-edit',
        path: 'views/test/__cassettes__/agent.test.ts/prompt-edit.html',
      },
      { test: 'test/agent.test.ts > other', error: 'ENOSPC: no space left on device' },
    ],
  }
  expect(renderSummaryText(summary)).toContain(
    [
      '  Divergence views (1): each diverged run next to its recording, one page to open in a browser:',
      '    test/agent.test.ts > prompt-edit: views/test/__cassettes__/agent.test.ts/prompt-edit.html',
      '    test/agent.test.ts > other: not written (ENOSPC: no space left on device)',
    ].join('\n'),
  )
  const github = {
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'acme/agents',
    GITHUB_RUN_ID: '7',
  }
  expect(renderSummaryMarkdown(summary, github)).toContain(
    "one page to open in a browser, in [this run's artifacts](https://github.com/acme/agents/actions/runs/7#artifacts) when the job uploads the view folder:\n- `test/agent.test.ts > prompt-edit`: views/test/__cassettes__/agent.test.ts/prompt-edit.html",
  )
  expect(renderSummaryMarkdown({ entries, obsolete: [] })).not.toContain('Divergence views')
})

it('names the child processes each tape started, and what reached a tape after its test ended', () => {
  const named: TapeSummaryEntry[] = [
    { ...entries[0]!, childProcesses: ['curl -s http://127.0.0.1:4010/v1/data', 'node worker.js (refused)'] },
    {
      ...entries[1]!,
      lateUses: ['A decision of kind "llm" reached tape "test/agent.test.ts > new-case" after it finished'],
    },
  ]
  const text = renderSummaryText({ entries: named, obsolete: [] })
  expect(text).toContain(
    [
      "  Child processes (2): started while a tape recorded or replayed; a Node process is taped in the lane named, what any other program sends is not seen (childProcesses: 'refuse' refuses them):",
      '    test/agent.test.ts > issue-412: curl -s http://127.0.0.1:4010/v1/data',
      '    test/agent.test.ts > issue-412: node worker.js (refused)',
      '',
      '  Used after their test ended (1): a promise the test did not await reached the tape after it finished, and was refused; await every agent call in the test:',
      '    test/agent.test.ts > new-case: A decision of kind "llm" reached tape "test/agent.test.ts > new-case" after it finished',
    ].join('\n'),
  )
  const markdown = renderSummaryMarkdown({ entries: named, obsolete: [] })
  expect(markdown).toContain('- `test/agent.test.ts > issue-412`: `curl -s http://127.0.0.1:4010/v1/data`')
  expect(markdown).toContain('- `test/agent.test.ts > new-case`: A decision of kind "llm" reached tape')
  expect(renderSummaryText({ entries, obsolete: [] })).not.toMatch(/Child processes|Used after/)
})

it('says last, in one line, that -u updates snapshots and not cassettes, only when a tape diverged', () => {
  const snapshotUpdate = { updateAll: 'npx vitest run -- --update-cassettes' }
  const line =
    '  -u updates snapshots, not cassettes: re-record a diverged test with the command its failure prints, or every tape that runs with npx vitest run -- --update-cassettes.'
  const text = renderSummaryText({ entries, obsolete: [], snapshotUpdate })
  expect(text.endsWith(`\n\n${line}`)).toBe(true)
  const clean = entries.filter((e) => e.status !== 'diverged')
  expect(renderSummaryText({ entries: clean, obsolete: [], snapshotUpdate })).not.toContain('-u updates')
  expect(renderSummaryText({ entries, obsolete: [] })).not.toContain('-u updates')
})

it('says a recording that was refused was not written', () => {
  const refused: TapeSummaryEntry = { ...entries[1]!, recorded: 1, written: false, recordingRefused: true }
  const text = renderSummaryText({ entries: [refused], obsolete: [] })
  expect(text).toContain('  test/agent.test.ts > new-case  auto  recorded         -  1 (not written)')
})
