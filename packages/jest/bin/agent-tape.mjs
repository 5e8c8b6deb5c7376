#!/usr/bin/env node
// The agent-tape command line, run from the @agent-tape/cli this package depends on. The runner
// ships the bin itself because pnpm links only the bins of a project's direct dependencies: the
// commands a failing test prints (`agent-tape view …`) must work after installing the runner alone.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

const require = createRequire(import.meta.url)
const manifest = require.resolve('@agent-tape/cli/package.json')
const { bin } = require(manifest)
await import(pathToFileURL(join(dirname(manifest), bin['agent-tape'])).href)
