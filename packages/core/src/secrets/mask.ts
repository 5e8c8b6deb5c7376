/**
 * The only way a secret is ever shown: at most its first 4 characters when it is long enough that
 * 4 characters give nothing away, and never any of a short one.
 *
 * @example maskSecret('sk-proj-…48 more') // 'sk-p… (56 chars)'
 */
export function maskSecret(value: string): string {
  if (value.length >= 20) return `${value.slice(0, 4)}… (${value.length} chars)`
  return `… (${value.length} chars)`
}
