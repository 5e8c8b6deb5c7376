import type { RecordedError, TextRow } from '@agent-tape/core/internal'
import type { ModelAnswer, ModelRequest } from '@agent-tape/http/internal'
import type { CassetteTotals } from '../reading/totals.js'

// Types only: the page's script (page/page-script.ts) is type-checked against them, so what the
// page is given and what it draws cannot drift apart.

/** Everything the page shows, embedded in it as JSON: the page draws itself from this. */
export interface PageData {
  /** A run on its own, or two runs side by side. */
  kind: 'run' | 'compare'
  title: string
  /** `agent-tape 0.1.0`, in the page's footer. */
  generator: string
  sides: SideData[]
  /** The aligned decisions of the two sides, with a verdict each (`compare` only). */
  rows?: RowData[]
  /** A line such as `4 → 6 decisions: 2 changed, 2 added, 0 removed, 2 unchanged`. */
  verdict?: string
  /** Values stored once (see `SharedValues`). */
  shared: unknown[]
}

/** What a side of the page is. */
export type SideRole = 'recording' | 'run' | 'before' | 'after'

export interface SideData {
  role: SideRole
  file: string
  header: HeaderData
  totals: CassetteTotals
  /** Lane names in order of first appearance; `''` is the run's main lane. */
  lanes: string[]
  /** The longest decision, for the duration bars (the longest of both sides when compared). */
  maxMs: number
  /**
   * Milliseconds from the recording's start to its last decision's end, when its decisions hold
   * their start (`at`); `0` otherwise. The time axis of the page's bars.
   */
  span: number
  /**
   * The decisions. In the page's JSON, a card both sides hold alike is a reference into `shared`
   * (`{"\u0000": i}`), stored once; the page resolves it when it starts.
   */
  cards: CardData[]
}

/** The cassette's header and totals, as the head of the page shows them (as `show` does). */
export interface HeaderData {
  test: string
  recordedAt: string
  /** `tree 296861c9f468 of src at commit 5a8c12931d70 with uncommitted changes`, … */
  harness: string
  /** Where the run was recorded when not by a test: `captured run "triage" (k3j9…): failed, …`. */
  source: string
  /** `agent-tape 0.1.0 · node v20.20.2 (linux)` */
  runtime: string
  sdks: string
  env: string
  /** `4: 1 env read, 2 model requests, 1 tool call` */
  decisions: string
  tokens: string
  /** `$0.0031 (gpt-4o $0.0031)`, or `no price (llama3.2)`, as of the recording. */
  cost: string
  /** The paths every key of the recording left out (`ignore`), which its inputs still hold. */
  ignored: string
  time: string
}

/** One decision, as its card shows it; `whole` is everything it recorded, for opening it. */
export interface CardData {
  seq: number
  kind: string
  step: number
  lane: string
  key: string
  ms: number
  /**
   * When the call began, in whole milliseconds from the start of its recording: the decision's
   * place on a time axis, `ms` its length. Absent in cassettes recorded before agent-tape wrote
   * it. A diverged run's replayed decisions keep the recording's; its misses have none.
   */
  at?: number
  label: string
  model?: {
    /**
     * The request read for people. Its last message's `text` is a reference into `shared` when it
     * is long (a tool loop's last message is the tool's whole result, held once); the page cuts it.
     */
    request: ModelRequest
    /** Names of the tools offered. */
    tools: string[]
    answer?: ModelAnswer & { stream?: { key: string; count: number } }
  }
  tool?: { name: string; args: unknown }
  env?: Record<string, string | null>
  /** The result of an MCP tool call, read from its response (other outputs are in `whole`). */
  output?: unknown
  error?: RecordedError
  /** A decision of the run that no recording answers: where it diverged. */
  missed?: true
  whole: { in: unknown; out?: unknown; err?: RecordedError }
}

/** How a decision of the second side relates to the first. */
export type Verdict =
  | 'same'
  | 'changed input'
  | 'changed answer'
  | 'added'
  | 'removed'
  | 'missed'
  | 'not reached'

export interface RowData {
  verdict: Verdict
  /** Indices into each side's cards. */
  a?: number
  b?: number
  /** What changed in the decision's input, a field each (the first 40). */
  edits: InputEdit[]
  /** Changed fields past the first 40, which `agent-tape diff --full` lists. */
  moreEdits?: number
  /** Output changes, one readable line each. */
  output: string[]
  /** Card fields that differ, highlighted on both sides: `messages`, `text`, `args`, `result`, … */
  fields: string[]
}

/** One changed field of a decision's input, as the page shows it. */
export interface InputEdit {
  /** The field's JSON path in the recorded input: `body.messages[302].content` (0-based). */
  path: string
  /**
   * What the path names, counted from 1: `message 303 (system)`, `system prompt`, `tool 2
   * (search)`, `argument city`; `''` when the path says it best.
   */
  name: string
  /** `inserted`: only the second side has the field; `removed`: only the first. */
  change: 'changed' | 'inserted' | 'removed'
  /** Both versions as aligned rows, the changed words marked (JSON text for a value that is not a string). */
  rows: TextRow[]
}
