// How agent-tape prints counts, tokens and dollars, on an entry of its own: the runner kit's
// matchers and budgets load with a runner's setup file, which must not load the readers, the
// diff or the view (decision 0016).
export { describeTokens, formatCount, formatUsd, modelName, tokens } from './numbers.js'
