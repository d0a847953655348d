// The import boundaries of eslint.config.js, run on a fixture tree with the project's own config (what
// `npm run lint` runs): an `electron` import outside the adapters, an import cycle (type-only included),
// native/ importing app/, types/ importing anything outside itself all fail; the same imports where they
// belong pass. Type-aware rules are switched off for the fixture (it is no tsconfig's program).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = mkdtempSync(join(tmpdir(), 'parakeet-lint-'));
after(() => rmSync(fixture, { recursive: true, force: true }));

const FILES: Record<string, string> = {
  'app/main/electron/adapter.ts': "import { app } from 'electron';\nexport const appName = (): string => app.getName();\n",
  'app/main/sessions/uses-electron.ts': "import { app } from 'electron';\nexport const appName = (): string => app.getName();\n",
  'app/main/index.ts': "import { app } from 'electron';\nexport const quit = (): void => app.quit();\n",
  'app/main/sessions/electron-types.ts': "import type { App } from 'electron';\nexport type AppLike = Pick<App, 'getName'>;\n",
  'app/main/cycle-a.ts': "import { b } from './cycle-b.js';\nexport const a = (): number => b + 1;\n",
  'app/main/cycle-b.ts': "import type { a } from './cycle-a.js';\nexport const b = 1;\nexport type A = typeof a;\n",
  'app/main/clean.ts': "import { b } from './cycle-c.js';\nexport const c = b;\n",
  'app/main/cycle-c.ts': 'export const b = 2;\n',
  'app/ipc/contract.ts': 'export type Shape = { n: number };\n',
  'native/index.ts': "import type { Shape } from '../app/ipc/contract.js';\nexport type NativeShape = Shape;\n",
  'types/errors.ts': "import type { Shape } from '../app/ipc/contract.js';\nexport type T = Shape;\n",
  'types/engine.ts': "import type { T } from './errors.js';\nexport type U = T;\n",
};

for (const [file, text] of Object.entries(FILES)) {
  mkdirSync(dirname(join(fixture, file)), { recursive: true });
  writeFileSync(join(fixture, file), text);
}

async function lint(): Promise<Map<string, string[]>> {
  const eslint = new ESLint({
    cwd: fixture,
    overrideConfigFile: join(root, 'eslint.config.js'),
    overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
  });
  const results = await eslint.lintFiles(Object.keys(FILES));
  const found = new Map<string, string[]>();
  for (const result of results) {
    found.set(relative(fixture, result.filePath), result.messages.map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`));
  }
  return found;
}

const found = await lint();
const rulesOf = (file: string): string[] => (found.get(file) ?? []).map((m) => m.split(':')[0]!);

test('electron is imported only by the adapters', () => {
  assert.deepEqual(rulesOf('app/main/electron/adapter.ts'), []);
  assert.deepEqual(rulesOf('app/main/sessions/uses-electron.ts'), ['no-restricted-imports']);
  assert.deepEqual(rulesOf('app/main/sessions/electron-types.ts'), ['no-restricted-imports'], 'a type-only import counts too');
  assert.match(found.get('app/main/sessions/uses-electron.ts')![0]!, /Only the Electron entry and adapters \(app\/main\/electron\/\)/);
  assert.deepEqual(rulesOf('app/main/index.ts'), ['no-restricted-imports'], 'the entry is an adapter only in app/main/electron/');
});

test('an import cycle fails on both sides, type-only imports included, and names the circle', () => {
  assert.deepEqual(rulesOf('app/main/cycle-a.ts'), ['local/no-import-cycle']);
  assert.deepEqual(rulesOf('app/main/cycle-b.ts'), ['local/no-import-cycle']);
  assert.match(found.get('app/main/cycle-a.ts')![0]!, /app\/main\/cycle-a\.ts → app\/main\/cycle-b\.ts → app\/main\/cycle-a\.ts/);
  assert.deepEqual(rulesOf('app/main/clean.ts'), [], 'an import that leads nowhere back passes');
});

test('native/ imports nothing from app/; types/ imports nothing outside itself', () => {
  assert.deepEqual(rulesOf('native/index.ts'), ['@typescript-eslint/no-restricted-imports']);
  assert.deepEqual(rulesOf('types/errors.ts'), ['@typescript-eslint/no-restricted-imports']);
  assert.deepEqual(rulesOf('types/engine.ts'), [], 'a sibling in types/ is fine');
});
