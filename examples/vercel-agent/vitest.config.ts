import { agentTape } from '@agent-tape/vitest/plugin'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // 127.0.0.1 is where the record script runs its scripted model; real runs go to api.openai.com.
  plugins: [agentTape({ harness: ['src'], modelEndpoints: ['http://127.0.0.1:*'] })],
})
