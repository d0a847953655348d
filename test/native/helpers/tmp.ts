// Scratch directories for native tests: one per test file, removed when the file finishes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

export function scratchDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `parakeet-native-${label}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
