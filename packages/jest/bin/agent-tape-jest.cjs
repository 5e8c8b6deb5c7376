#!/usr/bin/env node
require('../dist/cjs/cli.js').main()
