// The bin is emitted by tsc, which keeps the `#!/usr/bin/env node` line but not the file mode.
import { chmodSync, readFileSync } from 'node:fs'

for (const file of ['dist/esm/bin.js', 'dist/cjs/bin.js']) {
  if (!readFileSync(file, 'utf8').startsWith('#!/usr/bin/env node\n')) {
    console.error(`make-executable: ${file} does not start with #!/usr/bin/env node`)
    process.exit(1)
  }
  chmodSync(file, 0o755)
}
