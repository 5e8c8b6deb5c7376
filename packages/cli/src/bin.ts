#!/usr/bin/env node
import { main } from './main.js'
import { createStyle, shouldColor } from './output/style.js'

main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  style: createStyle(shouldColor(process.stdout, process.env)),
}).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(
      `[agent-tape] Unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
    process.exitCode = 2
  },
)
