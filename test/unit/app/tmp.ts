// Scratch folders for app tests, removed when the test file finishes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

export function scratch(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `parakeet-app-${label}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
