// GitHub Flavored Markdown to HTML for the subset `agent-tape diff --markdown` writes: ATX
// headings, pipe tables, paragraphs, HTML blocks (a line that starts with a block tag, up to the
// next blank line, passed through as it is), and inline text with backslash escapes, entities and
// the inline tags <code> and <br>. Anything outside the subset that a renderer would turn into
// markup (an unescaped `*`, `_`, `` ` ``, `[`, `]`, `~`, `$`, `|` in text, or another inline tag)
// throws, so that the report cannot rely on a construct this converter would render wrongly.

const BLOCK_TAGS = /^<\/?(details|summary|table|tr|td|th|pre|p|ul|li|div)[\s>]/i
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/
const MARKUP = /[*_`[\]~$|]/
const INLINE_TAGS = /^<\/?(code|br)>/

export function markdownToHtml(markdown: string): string {
  const lines = markdown.split('\n')
  const html: string[] = []
  let paragraph: string[] = []
  const endParagraph = () => {
    if (paragraph.length > 0) html.push(`<p>${inline(paragraph.join('\n'))}</p>`)
    paragraph = []
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.trim() === '') {
      endParagraph()
      continue
    }
    const heading = /^(#{1,6}) (.*)$/.exec(line)
    if (heading) {
      endParagraph()
      html.push(`<h${heading[1]!.length}>${inline(heading[2]!)}</h${heading[1]!.length}>`)
      continue
    }
    if (BLOCK_TAGS.test(line) && paragraph.length === 0) {
      const block: string[] = []
      for (; i < lines.length && lines[i]!.trim() !== ''; i++) block.push(lines[i]!)
      html.push(block.join('\n'))
      continue
    }
    const delimiter = lines[i + 1]
    if (
      line.startsWith('|') &&
      delimiter &&
      /^\|( *:?-+:? *\|)+$/.test(delimiter) &&
      paragraph.length === 0
    ) {
      const head = cells(line)
      if (cells(delimiter).length !== head.length)
        throw new Error(`table: the delimiter row has not ${head.length} cells`)
      const rows: string[] = [`<tr>${head.map((c) => `<th>${inline(c)}</th>`).join('')}</tr>`]
      for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
        const row = cells(lines[i]!)
        if (row.length !== head.length)
          throw new Error(`table: a row has ${row.length} cells, the header ${head.length}: ${lines[i]}`)
        rows.push(`<tr>${row.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`)
      }
      i--
      html.push(`<table>${rows.join('')}</table>`)
      continue
    }
    paragraph.push(line)
  }
  endParagraph()
  return html.join('\n')
}

/** A table row's cells: split at each `|` not escaped by a backslash, `\|` kept for the inline pass. */
function cells(row: string): string[] {
  const found: string[] = []
  let cell = ''
  const body = row.trim().replace(/^\|/, '').replace(/\|$/, '')
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\' && body[i + 1] === '|') {
      cell += '\\|'
      i++
    } else if (body[i] === '|') {
      found.push(cell.trim())
      cell = ''
    } else cell += body[i]
  }
  found.push(cell.trim())
  return found
}

function inline(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '\\' && PUNCTUATION.test(text[i + 1] ?? '')) {
      out += escapeChar(text[++i]!)
      continue
    }
    if (c === '&') {
      const entity = /^&(#\d+|#x[0-9a-f]+|[a-z]+);/i.exec(text.slice(i))
      if (!entity) throw new Error(`an unescaped "&" in ${JSON.stringify(text)}`)
      out += entity[0]
      i += entity[0].length - 1
      continue
    }
    if (c === '<') {
      const tag = INLINE_TAGS.exec(text.slice(i))
      if (!tag)
        throw new Error(`an inline tag outside the subset, or an unescaped "<", in ${JSON.stringify(text)}`)
      out += tag[0]
      i += tag[0].length - 1
      continue
    }
    if (MARKUP.test(c))
      throw new Error(`an unescaped ${JSON.stringify(c)} (Markdown markup) in ${JSON.stringify(text)}`)
    out += escapeChar(c)
  }
  return out
}

function escapeChar(c: string): string {
  return c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : c === '"' ? '&quot;' : c
}
