import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './fixture-project.js'

export interface ReadmeSnippet {
  /** The project file the snippet is, from its `<!-- readme-project: <path> -->` marker. */
  path: string
  code: string
}

/**
 * A section of the README, or of another page (`## <heading>` up to the next `## `), and the
 * snippets in it marked `<!-- readme-project: <path> -->`: the files a newcomer following it
 * would write.
 */
export function readReadmeSection(
  heading: string,
  file = 'README.md',
): { section: string; snippets: ReadmeSnippet[] } {
  const readme = readFileSync(join(REPO_ROOT, file), 'utf8')
  const start = readme.indexOf(`## ${heading}\n`)
  if (start < 0) throw new Error(`${file} has no section "## ${heading}"`)
  const end = readme.indexOf('\n## ', start)
  const section = readme.slice(start, end < 0 ? undefined : end)
  const snippets = [...section.matchAll(/<!-- readme-project: (\S+) -->\n```[jt]s\n([\s\S]*?)```/g)].map(
    (m) => ({ path: m[1]!, code: m[2]! }),
  )
  return { section, snippets }
}

/** The rows of the README's table of providers (under Compatibility) that name the codec `name`. */
export function providerRowsOf(name: string): string[] {
  return readReadmeSection('Compatibility')
    .section.split('\n')
    .filter((line) => line.startsWith('| ') && line.includes(`(\`${name}\``))
}
