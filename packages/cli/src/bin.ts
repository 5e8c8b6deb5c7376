#!/usr/bin/env node
import { formatMessage } from '@agent-tape/core/internal'
import { main } from './main.js'
import { createStyle, shouldColor } from './output/style.js'

main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  style: createStyle(shouldColor(process.stdout, process.env)),
  ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
}).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    const message = formatMessage({
      what: 'Unexpected error',
      why: error instanceof Error ? error.message : String(error),
      fix: 'This is a bug in agent-tape: please report it with the command you ran and this output',
      details: error instanceof Error && error.stack ? [error.stack] : [],
    })
    process.stderr.write(`${message}\n`)
    process.exitCode = 2
  },
)
