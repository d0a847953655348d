// Runs every test suite and ends with one line CI can read:
//   N passed, N failed, N skipped
// Suites: node:test (unit + native + integration), then Playwright (web-mode
// end-to-end in Debian's Chromium), then Playwright `_electron` specs (which
// skip themselves where no Electron binary exists).
//
//   npm test                      everything
//   npm test -- --only=node       one suite (node | e2e | electron)
//   npm test -- test/unit/x.test.ts   just these node:test files
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const explicitFiles = args.filter((a) => !a.startsWith('--'));
const scratch = mkdtempSync(join(tmpdir(), 'parakeet-test-'));
const totals = { passed: 0, failed: 0, skipped: 0, failures: [] };

function findTests(dir, suffix) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path, suffix));
    else if (name.endsWith(suffix)) out.push(path);
  }
  return out;
}

function add(counts, label) {
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  totals.failures.push(...counts.failures.map((f) => `[${label}] ${f}`));
}

function runNodeTests() {
  const files = explicitFiles.length
    ? explicitFiles.map((f) => resolve(f))
    : ['test/unit', 'test/native', 'test/integration'].flatMap((d) => findTests(join(root, d), '.test.ts'));
  if (files.length === 0) return;
  const countsFile = join(scratch, 'node-counts.json');
  const result = spawnSync(
    process.execPath,
    [
      '--import', 'tsx',
      '--test',
      '--test-concurrency=1',
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      `--test-reporter=${join(root, 'scripts', 'count-reporter.mjs')}`, '--test-reporter-destination=stderr',
      ...files.map((f) => relative(root, f)),
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, PARAKEET_TEST_COUNTS: countsFile } },
  );
  if (existsSync(countsFile)) add(JSON.parse(readFileSync(countsFile, 'utf8')), 'node');
  else add({ passed: 0, failed: 1, skipped: 0, failures: [`node:test exited ${result.status} without results`] }, 'node');
}

function countPlaywright(report) {
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const statuses = (test.results ?? []).map((r) => r.status);
        const last = statuses.at(-1);
        if (test.status === 'skipped' || last === 'skipped') counts.skipped += 1;
        else if (test.status === 'expected' || test.status === 'flaky') counts.passed += 1;
        else {
          counts.failed += 1;
          counts.failures.push(`${spec.file} › ${spec.title}`);
        }
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites ?? []) walk(suite);
  for (const error of report.errors ?? []) {
    counts.failed += 1;
    counts.failures.push(`playwright error: ${String(error.message ?? error).split('\n')[0]}`);
  }
  return counts;
}

function runPlaywright(config, label) {
  if (!existsSync(join(root, config))) return;
  const jsonFile = join(scratch, `${label}.json`);
  const result = spawnSync(
    process.execPath,
    [join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--config', config, '--reporter=list,json'],
    { cwd: root, stdio: 'inherit', env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: jsonFile } },
  );
  if (existsSync(jsonFile)) add(countPlaywright(JSON.parse(readFileSync(jsonFile, 'utf8'))), label);
  else add({ passed: 0, failed: 1, skipped: 0, failures: [`playwright (${config}) exited ${result.status} without a report`] }, label);
}

if (!only || only === 'node') runNodeTests();
if (explicitFiles.length === 0) {
  if (!only || only === 'e2e') runPlaywright('test/e2e/playwright.config.ts', 'e2e');
  if (!only || only === 'electron') runPlaywright('test/electron/playwright.config.ts', 'electron');
}

if (totals.failures.length) {
  console.log('\nFailed:');
  for (const failure of totals.failures) console.log(`  ✗ ${failure}`);
}
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exitCode = totals.failed > 0 ? 1 : 0;
