/**
 * A count as everything agent-tape prints it, grouped by thousands: `1,152`. The run summary,
 * costs, budgets, `show`, `diff` and the view all go through it, so one number never reads two
 * ways. It imports nothing: the matchers load it with a runner's setup, which stays light.
 */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}
