export { createFileStore, TEMP_PREFIX, writeFileAtomic } from './file-store.js'
export { createGitHarness } from './git-harness.js'
export { makeDirectory } from './make-directory.js'
