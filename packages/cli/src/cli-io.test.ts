import { describe, expect, it } from 'vitest'
import { createCliIo } from './cli-io.js'

function sinks(stdout: { isTTY?: boolean; columns?: number; hasColors?: () => boolean }) {
  const written = { stdout: '', stderr: '' }
  const streams = {
    stdout: {
      ...stdout,
      write: (text: string) => {
        written.stdout += text
      },
    },
    stderr: {
      write: (text: string) => {
        written.stderr += text
      },
    },
  }
  return { streams, written }
}

describe('createCliIo', () => {
  it('writes each stream to its own sink, and passes env and cwd through', () => {
    const { streams, written } = sinks({ isTTY: false })
    const env = { HOME: '/home/u' }
    const io = createCliIo(streams, env, '/work')
    io.stdout('out')
    io.stderr('err')
    expect(written).toEqual({ stdout: 'out', stderr: 'err' })
    expect(io.env).toBe(env)
    expect(io.cwd).toBe('/work')
  })

  it('gives a terminal with colours its colour and width', () => {
    const io = createCliIo(sinks({ isTTY: true, columns: 100, hasColors: () => true }).streams, {}, '/')
    expect(io.style.enabled).toBe(true)
    expect(io.columns).toBe(100)
  })

  it('gives a pipe neither colour nor width, even when the stream reports columns', () => {
    const io = createCliIo(sinks({ isTTY: false, columns: 100 }).streams, {}, '/')
    expect(io.style.enabled).toBe(false)
    expect(io).not.toHaveProperty('columns')
  })

  it('reads colour from the env it is given: FORCE_COLOR into a pipe, NO_COLOR on a terminal', () => {
    const pipe = sinks({ isTTY: false }).streams
    const tty = sinks({ isTTY: true, columns: 80, hasColors: () => true }).streams
    expect(createCliIo(pipe, { FORCE_COLOR: '1' }, '/').style.enabled).toBe(true)
    const noColor = createCliIo(tty, { NO_COLOR: '1' }, '/')
    expect(noColor.style.enabled).toBe(false)
    expect(noColor.columns).toBe(80)
  })

  it('leaves the width out for a terminal that reports none (columns 0)', () => {
    const io = createCliIo(sinks({ isTTY: true, columns: 0, hasColors: () => false }).streams, {}, '/')
    expect(io).not.toHaveProperty('columns')
  })
})
