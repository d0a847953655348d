// The app's root folder (where package.json is): the source tree under tsx,
// the repo above dist/ when compiled, the app folder when packaged.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

export function appRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i += 1) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown };
        if (pkg.name === 'parakeet-desktop') return (cached = dir);
      } catch {
        // unreadable: keep looking
      }
    }
    dir = path.dirname(dir);
  }
  return (cached = process.cwd());
}

export function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(appRoot(), 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
