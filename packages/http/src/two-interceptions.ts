import { ConfigError, redactUrl } from '@agent-tape/core/runtime'

const WHY =
  "the runner intercepts requests itself (interception: 'agent-tape', the default), so each request a tape makes would be intercepted twice and recorded or replayed once by each (a run of 3 model requests would make 6 or more decisions), and the requests your MSW handlers mock would be taped instead"
const FIX =
  "Set interception: 'msw' in the agent-tape options (the agentTape() plugin options, or testEnvironmentOptions.agentTape in Jest): your MSW server is then the only interception, with tapeHandlers() in it"

/**
 * MSW set up halfway: `tapeHandlers()` in the team's MSW server while the runner keeps its own
 * interception. Which one sees a request first depends on the order of the setup files and on the
 * msw version (msw 2 shares the interceptors of agent-tape's, msw 3 intercepts at the socket), so
 * the pair is refused wherever it shows: when `tapeHandlers()` is called after the runner's setup,
 * and when a request reaches the handlers with the runner's interception installed.
 */
export function twoInterceptionsError(request?: Request): ConfigError {
  if (!request) {
    return new ConfigError({
      what: "tapeHandlers() cannot join an MSW server here: agent-tape's own interception is installed",
      why: WHY,
      fix: FIX,
    })
  }
  return new ConfigError({
    what: `Two interceptions of ${request.method} ${redactUrl(request.url)}: it reached tapeHandlers() in your MSW server while agent-tape's own interception is installed`,
    why: `${WHY}; the request was not sent, and nothing is written`,
    fix: FIX,
  })
}
