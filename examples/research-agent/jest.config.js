/** @type {import('jest').Config} */
module.exports = {
  preset: '@agent-tape/jest',
  transform: {
    '\\.ts$': [
      'babel-jest',
      { presets: ['@babel/preset-typescript'], plugins: ['@babel/plugin-transform-modules-commonjs'] },
    ],
  },
  testEnvironmentOptions: {
    // 127.0.0.1 is where the record script runs its scripted model; real runs go to api.anthropic.com.
    agentTape: { harness: ['src'], modelEndpoints: ['http://127.0.0.1:*'] },
  },
}
