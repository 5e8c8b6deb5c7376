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
}

/**
 * Replaces `owner[key]` with the thin function `make` builds. `make` receives the original value
 * and the stand-in itself, whose `patched` the thin function reads on every call.
 */
export function standIn(
  owner: object,
  key: string,
  make: (original: unknown, self: StandIn) => unknown,
): StandIn {
  const original = Object.getOwnPropertyDescriptor(owner, key) as PropertyDescriptor
  const self: { -readonly [K in keyof StandIn]: StandIn[K] } = { owner, key, original, thin: undefined }
  self.thin = make((owner as Record<string, unknown>)[key], self)
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
 * first on every call (what places something behind it on first need).
 */
export function standInFunction(owner: object, key: string, beforeUse?: () => void): StandIn {
  return standIn(owner, key, (original, self) => {
    const fn = original as (...args: unknown[]) => unknown
    return function (this: unknown, ...args: unknown[]) {
      beforeUse?.()
      return ((self.patched as typeof fn | undefined) ?? fn).apply(this, args)
    }
  })
}

/** A stand-in for a class: `new` builds the original's instances until something is placed behind it. */
export function standInClass(owner: object, key: string, beforeUse?: () => void): StandIn {
  return standIn(owner, key, (original, self) => {
    const Original = original as new (...args: unknown[]) => object
    const thin: object = new Proxy(Original, {
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

/** Puts back each original, unless someone patched over the stand-in since: theirs stays. */
export function removeStandIns(standIns: readonly StandIn[]): void {
  for (const s of standIns) {
    const current = Object.getOwnPropertyDescriptor(s.owner, s.key)
    if (current?.value === s.thin) Object.defineProperty(s.owner, s.key, s.original)
  }
}
