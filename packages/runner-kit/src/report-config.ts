import type { TapeConfig } from './option-table.js'

/**
 * The options the run summary reads (`finishRun`). A runner hands this slice of its config to
 * its reporter as it is, so an option the summary reads is added here and where it is read,
 * and no runner names it.
 */
export const REPORT_OPTIONS = ['cassetteDir', 'viewDir', 'failOnObsolete'] as const

/** The run summary's slice of a config. */
export type ReportConfig = Pick<TapeConfig, (typeof REPORT_OPTIONS)[number]>

/** A config's slice for the run summary, as data (it may travel to the reporter as JSON). */
export function reportConfigOf(config: Partial<ReportConfig>): Partial<ReportConfig> {
  const slice: Partial<Record<keyof ReportConfig, unknown>> = {}
  for (const name of REPORT_OPTIONS) if (config[name] !== undefined) slice[name] = config[name]
  return slice as Partial<ReportConfig>
}
