// The tape context alone: which tape the running code belongs to, the run's mode as its runner
// resolved it, and the hooks boundaries set on tapes opening, running and finishing. It is what
// a runner's setup file and the boundary's stand-ins need before any tape opens, and it loads
// one module: everything a tape does beyond this (its errors, messages, modes, cassettes) is in
// `@agent-tape/core/runtime` and loads with the first tape. No semver promise, as `internal`:
// import it only from agent-tape's packages, at the same version.

export type { TapeMode } from './modes.js'
export type { Tape } from './tape.js'
export type { DecisionLabeler } from './tape-context.js'
export {
  activeTapeCount,
  activeTapes,
  addDecisionLabels,
  beforeTapeOpens,
  claimingTapeCount,
  currentTape,
  isInsideDecision,
  onTapeFinish,
  onTapeRun,
  replaysOutsideTapes,
  runInsideDecision,
  runMode,
  runWithTape,
  setProcessTape,
  setRunMode,
} from './tape-context.js'
