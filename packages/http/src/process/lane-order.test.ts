import { expect, it } from 'vitest'
import { compareLanes } from './lane-order.js'

it('orders lanes as the process tree: the main lane, then each process before its children and its siblings by shell', () => {
  const lanes = ['10', 'main.2', '1.2', '2', '1/1', '', '1', '0', 'unplaced', '1/0', '1.2/1']
  expect(lanes.sort(compareLanes)).toEqual([
    '',
    '0',
    '1',
    '1/0',
    '1/1',
    '1.2',
    '1.2/1',
    '2',
    '10',
    'main.2',
    'unplaced',
  ])
})
