/** The research tools: a tiny search index and page store standing in for the web. */
const PAGES: Record<string, string> = {
  'https://example.org/tape':
    'Fritz Pfleumer patented magnetic tape in 1928; AEG built the Magnetophon on it in 1935.',
  'https://example.org/vcr': 'The first commercial VCR, the Ampex VRX-1000, was sold in 1956.',
}

export async function search(args: { query: string }): Promise<{ url: string; title: string }[]> {
  const words = args.query.toLowerCase().split(/\s+/)
  return Object.keys(PAGES)
    .filter((url) => words.some((w) => url.includes(w) || PAGES[url]!.toLowerCase().includes(w)))
    .map((url) => ({ url, title: PAGES[url]!.split(';')[0]! }))
}

export async function fetchPage(args: { url: string }): Promise<string> {
  const page = PAGES[args.url]
  if (!page) throw new Error(`404 ${args.url}`)
  return page
}

export async function saveNote(args: { text: string }): Promise<{ saved: number }> {
  return { saved: args.text.length }
}
