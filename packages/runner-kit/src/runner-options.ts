import type { IgnoreRule, TapeMode } from '@agent-tape/core/internal'
import type { ReplayTiming } from '@agent-tape/http'
import type { TapeBudget } from './cost/budget.js'
import type { Pattern } from './patterns.js'

/**
 * The agent-tape options, the same for every runner: the Vitest plugin's `agentTape(options)`
 * and Jest's `testEnvironmentOptions.agentTape`. Everything here is data, because it travels to
 * the test workers; function-valued rules go in a setup file through `configureTape()`.
 */
export interface RunnerOptions {
  /** Folder beside each test file that holds its cassettes (default `__cassettes__`). */
  cassetteDir?: string
  /** Mode when neither `AGENT_TAPE_MODE` nor `-- --update-cassettes` is given (default: `auto` locally, `replay` in CI). */
  mode?: TapeMode
  /** Base URLs of model endpoints beyond the known provider hosts (a local or test server), or RegExps on the URL. */
  modelEndpoints?: readonly Pattern[]
  /**
   * Hosts a tape test may reach for real in every mode, neither recorded nor blocked (a local
   * database): `'db.internal'`, `'db.internal:5432'`, `'*.internal'`, or a RegExp on `host:port`.
   * Any other connection that agent-tape cannot record or replay is refused while a tape runs.
   */
  allowHosts?: readonly Pattern[]
  /**
   * What intercepts requests: agent-tape's own interception (default), or `'msw'`, the MSW server
   * your setup file starts, with `tapeHandlers()` from `@agent-tape/http/msw` among its handlers.
   */
  interception?: 'agent-tape' | 'msw'
  /** Paths of the agent loop ("harness") whose git tree is written in each cassette. */
  harness?: readonly string[]
  /** Fail replays recorded under a different harness tree, instead of warning (default false). */
  strictHarness?: boolean
  /** Fail replays that leave recorded decisions unused (default true). */
  failOnUnused?: boolean
  /**
   * Redactors for the human-readable copy of each input: `{ name, pattern, replacement? }`, the
   * pattern a RegExp with the `g` flag or its source (`flags` default to `g`).
   */
  redactors?: readonly { name: string; pattern: Pattern; flags?: string; replacement?: string }[]
  /** Normalizers applied before keying, identically at record and replay: `{ name, kinds?, pattern, replacement }`. */
  normalizers?: readonly {
    name: string
    kinds?: readonly string[]
    pattern: Pattern
    flags?: string
    replacement: string
  }[]
  /**
   * Fields every key leaves out, as JSON paths into a decision's canonical input, `*` for any key
   * or item: `['body.metadata.request_id', 'body.messages.*.id']`, or `{ path, kinds }` for some
   * kinds only. The fields are still stored (redacted); `show` and `view` list them as ignored.
   */
  ignore?: readonly IgnoreRule[]
  /**
   * The most each tape may take, checked as it finishes, recording or replaying: model requests
   * (`steps`), `tokens` (all, or `{ input, output }`), and `usd` at the recording's prices. A
   * tape over it fails with `ERR_TAPE_BUDGET` and the numbers per decision.
   */
  budget?: TapeBudget
  /**
   * Fail the run when it finds cassettes that no test uses any more, instead of listing them
   * (default false; also `--fail-on-obsolete`). A CI job then keeps the cassette folders clean.
   */
  failOnObsolete?: boolean
  /** Values the secret scan must accept, such as the fake key of a test server. */
  allowSecrets?: readonly Pattern[]
  /** How replayed streams are paced (default `instant`). */
  timing?: ReplayTiming
  /** Allow recording while `CI` is set (a job meant to record). */
  allowRecordingInCI?: boolean
  /**
   * What a tape does with the child processes its test starts while it records or replays:
   * `'tape'` (default) gives a Node child the tape's boundary in a lane of its own (`child-1`,
   * …), recording its requests into the test's cassette or replaying them from it, a miss
   * failing the test; `'allow'` starts them untaped and names each in the run summary (a replay
   * may then reach the network through them); `'refuse'` throws where one is started and fails
   * the test.
   */
  childProcesses?: 'tape' | 'allow' | 'refuse'
  /**
   * Tape the HTTPS that the child processes outside Node of a tape's test send through the proxy
   * variables (`curl https://…`), with a certificate authority made for the test process: its
   * certificate is given to each child through `SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`,
   * `CURL_CA_BUNDLE` and `NODE_EXTRA_CA_CERTS`, its key stays in memory. Default `false`: such a
   * tunnel is named while recording and refused in replay.
   */
  interceptHttps?: boolean
  /**
   * Folder, relative to the project root, where the run summary writes the divergence view of
   * every test whose replay diverged (one HTML page each), for a CI job to keep as an artifact.
   * Default: none; the failure report always names the command that writes one.
   */
  viewDir?: string
}
