/**
 * A count with thousands separators: `12,400`. In a module of its own: the matchers and budgets
 * the setup file loads in every test file need it, and the preview it was part of loads the
 * reading side of core (the diff library among it).
 */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}
