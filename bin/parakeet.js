#!/usr/bin/env node
// Entry point of the `parakeet` command (package.json "bin").
// Runs the compiled CLI from dist/; from a source checkout without a build it
// says how to build instead of failing obscurely.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'app', 'cli', 'main.js');
if (!existsSync(compiled)) {
  process.stderr.write('parakeet: the command-line tool is not built yet; run "npm run build" in ' + root + '\n');
  process.exit(1);
}
await import(pathToFileURL(compiled).href);
