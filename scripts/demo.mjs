#!/usr/bin/env node
// The article's loop, end to end, on a machine with no internet: record a failing agent run once,
// replay it offline, see a prompt edit fail as a diff (and as a page), re-record, and read the run
// summary.
// It works on a temporary copy of examples/support-agent and leaves the repository as it was.
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { startFakeProvider } from '@agent-tape/fake-provider'
import { reply } from '../examples/support-agent/scripts/scripted-model.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const example = join(root, 'examples/support-agent')
const tty = process.stdout.isTTY && !process.env.NO_COLOR
const bold = (text) => (tty ? `\x1b[1m${text}\x1b[22m` : text)
const dim = (text) => (tty ? `\x1b[2m${text}\x1b[22m` : text)
const ANSI = /\x1b\[[0-9;]*m/g

const GOOD_RULE = 'When a customer was charged twice, refund only the duplicate payment, never the original. '
const BUGGY_RULE = 'When a customer was charged twice, refund what they were charged. '

let step = 0
function chapter(title, text) {
  step++
  console.log(`\n${bold(`${step}. ${title}`)}`)
  if (text) console.log(dim(text))
}

/** Runs vitest in the copy and returns its output without colours. */
function vitest(dir, args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run', ...args], {
      cwd: dir,
      env: { ...userShell(), FORCE_COLOR: '0', CI: '', AGENT_TAPE_MODE: '', ...env },
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('exit', (code) => resolve({ code, output: output.replace(ANSI, '') }))
  })
}

/** Runs a command line in the copy as a user's shell would, and returns its output without colours. */
function shell(dir, command, env) {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      cwd: dir,
      env: { ...userShell(), FORCE_COLOR: '0', CI: '', AGENT_TAPE_MODE: '', ...env },
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('exit', (code) => resolve({ code, output: output.replace(ANSI, '') }))
  })
}

/** The environment of a user's shell: without the npm_* variables of the `pnpm demo` that runs us. */
function userShell() {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')))
}

/** Prints the lines of `output` from the first line matching `from` up to (not including) `to`. */
function excerpt(output, from, to, indent = '   ') {
  const lines = output.split('\n')
  const start = lines.findIndex((l) => from.test(l))
  if (start === -1) return
  let end = lines.findIndex((l, i) => i > start && to.test(l))
  if (end === -1) end = lines.length
  for (const line of lines.slice(start, end)) console.log(`${indent}${line}`)
}

function summary(output) {
  excerpt(output, /^agent-tape {2}\d+ tape/, /^\s*decisions:/)
  // The decisions, and what the replayed recordings would have cost live.
  excerpt(output, /^\s*decisions:/, /^$/)
  excerpt(output, /^\s*Tokens by model:/, /^$/)
}

function result(run) {
  const line = run.output.split('\n').find((l) => /^\s+Tests\s+\d/.test(l))
  console.log(`   ${run.code === 0 ? 'PASS' : 'FAIL'} ${line ? line.trim() : ''}`)
}

function setPrompt(dir, from, to) {
  const file = join(dir, 'src/agent.ts')
  const text = readFileSync(file, 'utf8')
  if (!text.includes(from)) {
    throw new Error(
      `[agent-tape demo] Cannot edit the prompt: ${file} no longer contains "${from.trim()}". Update GOOD_RULE in scripts/demo.mjs to match SYSTEM_PROMPT in examples/support-agent/src/agent.ts.`,
    )
  }
  writeFileSync(file, text.replace(from, to))
}

const work = mkdtempSync(join(tmpdir(), 'agent-tape-demo-'))
const dir = join(work, 'support-agent')
const provider = await startFakeProvider({ reply: (request) => reply(request.body), seed: 'demo' })
try {
  cpSync(example, dir, {
    recursive: true,
    filter: (src) => !/(^|\/)(node_modules|__cassettes__)(\/|$)/.test(relative(example, src)),
  })
  symlinkSync(join(example, 'node_modules'), join(dir, 'node_modules'), 'dir')
  // A git checkout, so the cassette header can say which code recorded it.
  const git = (...args) =>
    spawnSync('git', args, {
      cwd: dir,
      stdio: 'ignore',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'demo',
        GIT_AUTHOR_EMAIL: 'demo@example.com',
        GIT_COMMITTER_NAME: 'demo',
        GIT_COMMITTER_EMAIL: 'demo@example.com',
      },
    })
  git('init', '-q')
  setPrompt(dir, GOOD_RULE, BUGGY_RULE)
  git('add', '.')
  git('commit', '-qm', 'support agent')
  const online = { OPENAI_BASE_URL: provider.openaiBaseURL }

  console.log(bold('agent-tape demo: a trace you cannot replay is only a log'))
  console.log(dim(`A copy of examples/support-agent in ${dir}`))
  console.log(
    dim(`A scripted model speaks the OpenAI wire format on ${provider.url}; nothing else is reachable.`),
  )

  chapter(
    'Ticket #412 comes in, and the agent gets it wrong',
    'A customer was charged twice. The system prompt says "refund what they were charged", so the model\n' +
      'refunds the whole amount of the original payment. The test has no cassette yet: mode "auto" records.',
  )
  const record = await vitest(dir, [], online)
  result(record)
  excerpt(record.output, /AssertionError/, /❯ test\/agent\.test\.ts/)
  const cassette = join(dir, 'test/__cassettes__/agent.test.ts/issue-412.jsonl')
  const lines = readFileSync(cassette, 'utf8').trimEnd().split('\n')
  console.log(
    `   recorded ${lines.length - 1} decisions in ${relative(dir, cassette)} (the failing run is the point)`,
  )
  console.log(`   the model server answered ${provider.requests.length} requests`)

  chapter(
    'Replay it offline, as often as you like',
    'The same test, with no model endpoint configured: every model request and tool call comes from the cassette.',
  )
  const before = provider.connections
  const replay = await vitest(dir, [], {})
  result(replay)
  excerpt(replay.output, /AssertionError/, /❯ test\/agent\.test\.ts/)
  console.log(`   connections to the model server during the replay: ${provider.connections - before}`)
  console.log('   The bug reproduces in milliseconds, for free, on any machine.')

  chapter(
    'Fix the prompt',
    `src/agent.ts: "${BUGGY_RULE.trim()}"\n          → "${GOOD_RULE.trim()}"\n` +
      'The recording no longer describes this agent: the first replay miss is the diff.',
  )
  setPrompt(dir, BUGGY_RULE, GOOD_RULE)
  const miss = await vitest(dir, [], {})
  result(miss)
  excerpt(miss.output, /\[agent-tape\] Replay miss/, /❯ |^⎯/)

  chapter(
    'See the divergence',
    "The report's view line: the recording and this run side by side, as one HTML page that loads nothing.",
  )
  const view = / {2}view {6}npx --no-install agent-tape (view \S+ --run \S+)/.exec(miss.output)?.[1]
  // Kept after the demo, outside the repository, for you to open.
  const page = join(tmpdir(), 'agent-tape-demo', 'issue-412.html')
  const cli = join(root, 'packages/cli/dist/esm/bin.js')
  const written = view
    ? spawnSync(process.execPath, [cli, ...view.split(' '), '-o', page], { cwd: dir, encoding: 'utf8' })
    : undefined
  if (written?.status === 0) console.log(`   ${pathToFileURL(page)}`)
  else console.log(`   no page: ${written?.stderr ?? 'the report has no view line'}`)

  // The command the miss printed, run as printed: the one a user copies.
  const rerecord =
    /re-record this test: (.+?)\.$/m.exec(miss.output)?.[1] ?? 'the miss printed no re-record command'
  chapter('Re-record this one test', rerecord)
  const update = await shell(dir, rerecord, online)
  result(update)
  const fresh = readFileSync(cassette, 'utf8').trimEnd().split('\n')
  const refund = fresh.map((l) => JSON.parse(l)).find((d) => d.kind === 'tool' && d.in?.name === 'refund')
  console.log(`   the refund now recorded: ${JSON.stringify(refund?.in.args)}`)
  // What the re-record changed against the cassette it replaced: steps, tokens, dollars.
  excerpt(update.output, /^\s*Re-recorded \(/, /^$/)

  chapter('CI replays it: no key, no network, no tokens', 'CI=true npx vitest run')
  const ci = await vitest(dir, [], { CI: 'true' })
  result(ci)
  summary(ci.output)

  const ok =
    record.code !== 0 &&
    replay.code !== 0 &&
    miss.code !== 0 &&
    written?.status === 0 &&
    update.code === 0 &&
    ci.code === 0
  console.log(
    `\n${ok ? 'The loop worked' : 'The demo did not go as expected'}: record once, replay for free, and let the first miss be your diff.`,
  )
  process.exitCode = ok ? 0 : 1
} finally {
  await provider.close()
  rmSync(work, { recursive: true, force: true })
}
