import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { runWeatherAgent, weatherTurns } from './support/agents.js'
import { maskRun, runCli } from './support/cli.js'
import { recordCassette } from './support/record.js'

const section = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8')

/** The output shown after `$ npx agent-tape <command>` in the CLI's page. */
function documentedOutput(command: string): string {
  const match = new RegExp(`\\$ npx agent-tape ${command}\\n([\\s\\S]*?)\`\`\``).exec(section)
  if (!match) throw new Error(`docs/cli.md shows no output of agent-tape ${command}`)
  return match[1]!
}

const maskKeys = (text: string) => maskRun(text).replace(/\b(llm|tool|env):[0-9a-f]{16}\b/g, '$1:<key>')

it('shows the timeline docs/cli.md documents for the same run', async () => {
  const root = mkdtempSync(join(tmpdir(), 'agent-tape-cli-readme-'))
  const cassette = 'test/__cassettes__/weather.test.ts/paris.jsonl'
  await recordCassette(root, cassette, {
    reply: weatherTurns(['It is 18°C ', 'and raining.\n', 'Take an umbrella.']),
    run: (c) => runWeatherAgent(c, 'Weather in Paris?'),
    tape: { id: 'weather.test.ts > paris', env: { WEATHER_UNITS: 'metric' } },
  })
  const { stdout } = await runCli(['show', cassette], root)
  expect(maskKeys(stdout)).toBe(maskKeys(documentedOutput(`show ${cassette}`)))
})

it('documents every command the bin has', async () => {
  const help = (await runCli(['--help'], tmpdir())).stdout
  for (const command of ['show', 'diff', 'verify', 'prune', 'promote', 'textconv', 'setup-git']) {
    expect(help).toContain(`  ${command} `)
    expect(section).toContain(`| \`agent-tape ${command} `)
  }
})
