/**
 * A property of Node or of the global the boundary takes over, held by a thin function from the
 * runner's setup on. Modules keep what they find when they load (an SDK client keeps `fetch` when
 * it is built, a library keeps `http.get`), so the thin function has to be in place before any
 * test file loads; what serves a tape behind it (the interceptors, the guards) loads with the
 * first tape and is placed behind it with {@link patchBehind}, so that what a module kept reaches
 * it too.
 */
export interface StandIn {
  readonly owner: object
  readonly key: string
  /** The property as it was before the stand-in: what the implementation behind it wraps. */
  readonly original: PropertyDescriptor
  readonly thin: unknown
  /** What the implementation put in the property's place, once loaded: the thin function calls it. */
  patched?: unknown
  /**
   * Removed while another library's patch was over it: the thin function stays in that patch's
   * chain (it calls the original), and the next stand-in of the property takes its place.
   */
  removed?: boolean
}

/** Marks a thin function with its stand-in, across copies of this module (ESM, CJS, a Jest sandbox). */
const STAND_IN = Symbol.for('agent-tape.stand-in')

/**
 * Replaces `owner[key]` with the thin function `make` builds. `make` receives the original value
 * and the stand-in itself, whose `patched` the thin function reads on every call.
 */
export function standIn(
  owner: object,
  key: string,
  make: (original: unknown, self: StandIn) => unknown,
): StandIn {
  let original = Object.getOwnPropertyDescriptor(owner, key) as PropertyDescriptor
  // A stand-in removed under another library's patch, which that library put back when it removed
  // its own (a team's MSW server closed after the runner's setup was disposed): stood in for again
  // from the original, so that a worker running many files does not chain one per file.
  const earlier = (original.value as { [STAND_IN]?: StandIn } | undefined)?.[STAND_IN]
  if (earlier?.removed) original = earlier.original
  const self: { -readonly [K in keyof StandIn]: StandIn[K] } = { owner, key, original, thin: undefined }
  self.thin = make('value' in original ? original.value : original.get?.call(owner), self)
  // A class's thin function is a Proxy, which answers for the mark itself (see standInClass).
  if ((self.thin as { [STAND_IN]?: StandIn })[STAND_IN] !== self)
    Object.defineProperty(self.thin, STAND_IN, { value: self })
  Object.defineProperty(owner, key, {
    value: self.thin,
    writable: true,
    enumerable: original.enumerable ?? true,
    configurable: true,
  })
  return self
}

/**
 * A stand-in for a function: the original until something is placed behind it. `beforeUse` runs
 * first on every call (what places something behind it on first need); then `instead`, given the
 * original and the arguments, may answer the call itself (anything but `undefined`).
 */
export function standInFunction(
  owner: object,
  key: string,
  beforeUse?: () => void,
  instead?: (original: (...args: unknown[]) => never, args: unknown[]) => unknown,
): StandIn {
  return standIn(owner, key, (original, self) => {
    const fn = original as (...args: unknown[]) => unknown
    return function (this: unknown, ...args: unknown[]) {
      beforeUse?.()
      const answer = instead?.(fn as (...args: unknown[]) => never, args)
      if (answer !== undefined) return answer
      return ((self.patched as typeof fn | undefined) ?? fn).apply(this, args)
    }
  })
}

/** A stand-in for a class: `new` builds the original's instances until something is placed behind it. */
export function standInClass(owner: object, key: string, beforeUse?: () => void): StandIn {
  return standIn(owner, key, (original, self) => {
    const Original = original as new (...args: unknown[]) => object
    const thin: object = new Proxy(Original, {
      // The mark of the stand-in, without a property added to the original class.
      get: (target, key, receiver) => (key === STAND_IN ? self : Reflect.get(target, key, receiver)),
      construct(_target, args, newTarget) {
        beforeUse?.()
        const Class = (self.patched as typeof Original | undefined) ?? Original
        return Reflect.construct(Class, args, newTarget === thin ? Class : newTarget)
      },
    })
    return thin
  })
}

/**
 * Runs `patch`, which patches the owners of `standIns` as it would patch Node (an interceptor's
 * `apply()`), and places what it patched behind the stand-ins. The patch must find and wrap each
 * original, not the thin function (which would call it back), so for its moment each property
 * holds its original; after, it holds again what it held before (the thin function, or what
 * another library patched over it meanwhile).
 */
export function patchBehind<T>(standIns: readonly StandIn[], patch: () => T): T {
  const held = standIns.map((s) => Object.getOwnPropertyDescriptor(s.owner, s.key))
  for (const s of standIns) Object.defineProperty(s.owner, s.key, s.original)
  try {
    const result = patch()
    for (const s of standIns) s.patched = (s.owner as Record<string, unknown>)[s.key]
    return result
  } finally {
    standIns.forEach((s, i) => {
      const descriptor = held[i]
      if (descriptor) Object.defineProperty(s.owner, s.key, descriptor)
    })
  }
}

/**
 * Runs `unpatch`, which undoes what {@link patchBehind}'s patch did (an interceptor's `dispose()`,
 * which puts back the original it wrapped), and leaves each property as it is now.
 */
export function unpatchBehind(standIns: readonly StandIn[], unpatch: () => void): void {
  const current = standIns.map((s) => Object.getOwnPropertyDescriptor(s.owner, s.key))
  try {
    unpatch()
  } finally {
    standIns.forEach((s, i) => {
      s.patched = undefined
      const descriptor = current[i]
      if (descriptor) Object.defineProperty(s.owner, s.key, descriptor)
    })
  }
}

/**
 * Puts back each original, unless someone patched over the stand-in since: theirs stays, and
 * the thin function in its chain calls the original from now on (see {@link StandIn.removed}).
 */
export function removeStandIns(standIns: readonly StandIn[]): void {
  for (const s of standIns) {
    const current = Object.getOwnPropertyDescriptor(s.owner, s.key)
    if (current?.value === s.thin) Object.defineProperty(s.owner, s.key, s.original)
    else s.removed = true
  }
}
