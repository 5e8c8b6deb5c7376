/** Statuses whose response has no body (the Fetch standard's null body statuses, and 1xx ones). */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304])

/** Statuses `fetch` follows as a redirect when the response names a `location`. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])
