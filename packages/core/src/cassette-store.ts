/**
 * Where cassettes live. Core never touches the file system itself: the runners pass a store
 * (the Node one in `@agent-tape/core/node` writes atomically, temp file + rename).
 */
export interface CassetteStore {
  /** The file's text, or `null` when it does not exist. */
  read(path: string): Promise<string | null>
  /** Replaces the file's content atomically: readers see the old or the new file, never a mix. */
  write(path: string, text: string): Promise<void>
}

/** An in-memory store, for tools and tests that keep cassettes as strings. */
export function createMemoryStore(files: Record<string, string> = {}): CassetteStore & {
  files: Record<string, string>
} {
  return {
    files,
    async read(path) {
      return Object.hasOwn(files, path) ? files[path]! : null
    },
    async write(path, text) {
      files[path] = text
    },
  }
}
