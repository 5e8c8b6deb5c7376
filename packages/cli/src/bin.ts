#!/usr/bin/env node
import { createCliIo } from './cli-io.js'
import { main } from './main.js'

main(process.argv.slice(2), createCliIo(process, process.env, process.cwd())).then((code) => {
  process.exitCode = code
})
