// The one error-code list (types/errors.ts): every code the app and the engine's binding emit by name is on it,
// so a new code cannot appear somewhere without being added there. Read from the sources, as a reviewer would:
// `new CodedError('X'`, `fail('X'`, `new ModelError('X'` and `code: 'X'` literals.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ENGINE_ERROR_CODES, ERROR_CODES, MODEL_ERROR_CODES } from '../../../types/errors.js';
import { ENGINE_ERROR_CODES as NATIVE_ENGINE_CODES } from '../../../native/index.js';
import { MODEL_ERROR_CODES as MANAGER_MODEL_CODES } from '../../../app/main/models/errors.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Codes of Node and its libraries that pass through unchanged (fs errors, parseArgs). */
const FOREIGN = new Set(['ENOSPC', 'ERR_PARSE_ARGS_USAGE']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

test('every code emitted by name in app/, renderer/ and native/index.ts is on the one list', () => {
  const files = [...sources(join(ROOT, 'app')), ...sources(join(ROOT, 'renderer')), join(ROOT, 'native', 'index.ts')];
  const pattern = /(?:CodedError|fail|ModelError)\(\s*'([A-Z][A-Z0-9_]{2,})'|code: '([A-Z][A-Z0-9_]{2,})'/g;
  const listed = new Set<string>(ERROR_CODES);
  const missing = new Set<string>();
  let seen = 0;
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(pattern)) {
      const code = (m[1] ?? m[2])!;
      seen += 1;
      if (!listed.has(code) && !FOREIGN.has(code)) missing.add(`${code} (${file.slice(ROOT.length)})`);
    }
  }
  assert.ok(seen > 50, `the scan found ${seen} codes: it reads the sources`);
  assert.deepEqual([...missing], []);
});

test('the binding and the model manager take their codes from the list, not their own copies', () => {
  assert.equal(NATIVE_ENGINE_CODES, ENGINE_ERROR_CODES);
  assert.equal(MANAGER_MODEL_CODES, MODEL_ERROR_CODES);
});
