import type { GatewayNotice } from '@agent-tape/http/process'

/** The requests the gateway did not tape, one line each without repeats: `CONNECT api.example.com:443 (why)`. */
export function describeNotices(notices: readonly GatewayNotice[]): string[] {
  return [...new Set(notices.map((n) => `${n.request} (${n.why})`))]
}
