// Building the page's nodes: every value reaches the page as a text node or an attribute, never
// as HTML. And the small formatters every part of the page shares.

export type Json = Record<string, unknown>
/** What `el` and `add` take as children: nodes, text, lists of them; `null`, `undefined` and `false` are skipped. */
export type Child = Node | string | number | null | undefined | false | Child[]
type Props = Record<string, string | number | boolean | null | undefined | EventListener>

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (props) {
    for (const k of Object.keys(props)) {
      const v = props[k]
      if (v === undefined || v === null || v === false) continue
      if (k === 'class') node.className = String(v)
      else if (k.slice(0, 2) === 'on') node.addEventListener(k.slice(2), v as EventListener)
      else node.setAttribute(k, v === true ? '' : String(v))
    }
  }
  for (const child of children) add(node, child)
  return node
}

export function add(node: Node & ParentNode, child: Child): void {
  if (child === undefined || child === null || child === false) return
  if (Array.isArray(child)) for (const c of child) add(node, c)
  else if (child instanceof Node) node.append(child)
  else node.append(marked(String(child)))
}

// Redaction markers stand out, as in the terminal.
export function marked(text: string): Node {
  const parts = text.split(/(\[REDACTED(?::[^\]]*)?\])/)
  if (parts.length === 1) return document.createTextNode(text)
  const span = document.createDocumentFragment()
  parts.forEach((part, i) => {
    if (i % 2) span.append(el('mark', { class: 'redacted' }, document.createTextNode(part)))
    else if (part) span.append(document.createTextNode(part))
  })
  return span
}

export function json(value: unknown, compact?: boolean): string {
  if (value === undefined) return 'undefined'
  return compact ? JSON.stringify(value) : JSON.stringify(value, null, 2)
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}\u2026` : text
}

export function asObject(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {}
}

/** `12,345` (not `toLocaleString`, which is slow enough to matter a thousand times over). */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

export function plural(n: number, word: string): string {
  return `${count(n)} ${word}${n === 1 ? '' : 's'}`
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`
}

/** A button that copies a text (a request, an answer, a key) and says so. */
export function copyButton(what: string, text: () => string): HTMLButtonElement {
  const label = `Copy ${what}`
  const button = el('button', { type: 'button', class: 'copy', 'data-copy': what }, label)
  button.addEventListener('click', () => {
    const value = text()
    const done = () => {
      button.textContent = 'Copied'
      button.setAttribute('data-copied', 'true')
      setTimeout(() => {
        button.textContent = label
      }, 1500)
    }
    const fallback = () => {
      const area = el('textarea', { class: 'sr-only', 'aria-hidden': 'true' })
      area.value = value
      document.body.append(area)
      area.select()
      document.execCommand('copy')
      area.remove()
      done()
    }
    if (navigator.clipboard) navigator.clipboard.writeText(value).then(done, fallback)
    else fallback()
  })
  return button
}
