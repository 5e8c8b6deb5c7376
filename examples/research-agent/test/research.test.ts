import { createClient, research } from '../src/agent'
import { fetchPage, saveNote, search } from '../src/library'

it.tape('magnetic-tape', async ({ tape }) => {
  const { RESEARCH_LANGUAGE } = tape.env(['RESEARCH_LANGUAGE'])
  const tools = tape.tools({ search, fetch_page: fetchPage, save_note: { run: saveNote, effect: 'write' } })
  const result = await research(
    'Who invented magnetic tape, and when?',
    createClient(),
    tools,
    RESEARCH_LANGUAGE,
  )

  expect(result.toolCalls).toEqual(['search', 'fetch_page', 'fetch_page', 'save_note'])
  expect(result.stopReasons.at(-1)).toBe('end_turn')
  expect(result.answer).toMatch(/Pfleumer.*1928/)
})
