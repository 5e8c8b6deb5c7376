// `preset: '@agent-tape/jest'`: the environment that knows the test being defined, the setup
// file that adds it.tape and the matchers, and the run summary after Jest's own report.
const { join } = require('node:path')

const dist = join(__dirname, 'dist', 'cjs')

module.exports = {
  testEnvironment: join(dist, 'environment.js'),
  setupFilesAfterEnv: [join(dist, 'setup.js')],
  reporters: ['default', join(dist, 'reporter.js')],
}
