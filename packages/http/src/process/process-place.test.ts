import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { ProcessPlace } from './process-place.js'

const dirs: string[] = []
const session = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tape-place-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

it('names children by the order they were started, and keeps the lane of a process that decided first', () => {
  const dir = session()
  const parent = new ProcessPlace(dir, { path: '', lane: '' })
  expect(parent.laneOfDecisions()).toBe('')
  const first = parent.nextChild()
  const second = parent.nextChild()
  expect([first, second]).toEqual([
    { path: '1', lane: '1' },
    { path: '2', lane: '2' },
  ])
  const child = new ProcessPlace(dir, first)
  expect(child.laneOfDecisions()).toBe('1')
  expect(child.nextChild()).toEqual({ path: '1/1', lane: '1/1' })
})

it("hands a launcher's lane to the first child it starts before any decision, and gives its own later decisions <path>/0", () => {
  const dir = session()
  const launcher = new ProcessPlace(dir, { path: '', lane: '' })
  const slot = launcher.nextChild()
  expect(slot).toEqual({ path: '1', lane: '' })
  expect(launcher.nextChild()).toEqual({ path: '2', lane: '2' })
  const agent = new ProcessPlace(dir, slot)
  expect(agent.laneOfDecisions()).toBe('')
  expect(launcher.laneOfDecisions()).toBe('0')
  // Through two launchers (npx, then tsx), the agent still has the main lane.
  const inner = new ProcessPlace(dir, { path: '', lane: '' })
  expect(new ProcessPlace(session(), inner.nextChild()).laneOfDecisions()).toBe('')
})

it('tells apart the Node processes a shell starts from one slot by the order they start and decide', () => {
  const dir = session()
  const slot = { path: '1', lane: '1' }
  const build = new ProcessPlace(dir, slot)
  const agent = new ProcessPlace(dir, slot)
  expect([build.path, agent.path]).toEqual(['1', '1.2'])
  // The build makes no decision: the agent, deciding first, keeps the slot's lane.
  expect(agent.laneOfDecisions()).toBe('1')
  expect(build.laneOfDecisions()).toBe('1.2')
  const root = { path: '', lane: '' }
  const a = new ProcessPlace(dir, root)
  const b = new ProcessPlace(dir, root)
  expect([a.path, b.path, a.laneOfDecisions(), b.laneOfDecisions()]).toEqual(['', 'main.2', '', 'main.2'])
})
