import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './fixture-project.js'

export interface ReadmeSnippet {
  /** The project file the snippet is, from its `<!-- readme-project: <path> -->` marker. */
  path: string
  code: string
}

/**
 * A section of the README (`## <heading>` up to the next `## `) and the snippets in it marked
 * `<!-- readme-project: <path> -->`: the files a newcomer following it would write.
 */
export function readReadmeSection(heading: string): { section: string; snippets: ReadmeSnippet[] } {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf(`## ${heading}\n`)
  const section = readme.slice(start, readme.indexOf('\n## ', start))
  const snippets = [...section.matchAll(/<!-- readme-project: (\S+) -->\n```[jt]s\n([\s\S]*?)```/g)].map(
    (m) => ({ path: m[1]!, code: m[2]! }),
  )
  return { section, snippets }
}
