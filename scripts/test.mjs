// Runs every test suite and ends with one line CI can read:
//   N passed, N failed, N skipped
// Suites: node:test (unit + native + integration), then Playwright (web-mode
// end-to-end in Debian's Chromium), then Playwright `_electron` specs (which
// skip themselves where no Electron binary exists).
//
//   npm test                      everything
//   npm test -- --only=node       one suite (node | e2e | electron)
//   npm test -- test/unit/x.test.ts   just these node:test files
//   npm test -- --only=vulkan     the Vulkan lane: test/native/vulkan-*.test.ts against the addon named by
//                                 $PARAKEET_VULKAN_ADDON, with lavapipe shown as Vulkan0 (GGML_VK_VISIBLE_DEVICES=0)
//   --counts-out=file             also write the totals as JSON (the Vulkan lane's, for the main run)
//   $PARAKEET_EXTRA_COUNTS=file   totals of an earlier run (the Vulkan lane) counted into the final line
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const explicitFiles = args.filter((a) => !a.startsWith('--'));
const countsOut = args.find((a) => a.startsWith('--counts-out='))?.slice('--counts-out='.length);
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

function runNodeTests(files = explicitFiles.length
  ? explicitFiles.map((f) => resolve(f))
  : ['test/unit', 'test/native', 'test/integration'].flatMap((d) => findTests(join(root, d), '.test.ts')), label = 'node', env = process.env) {
  if (files.length === 0) return;
  const countsFile = join(scratch, `${label}-counts.json`);
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
    { cwd: root, stdio: 'inherit', env: { ...env, PARAKEET_TEST_COUNTS: countsFile } },
  );
  if (existsSync(countsFile)) add(JSON.parse(readFileSync(countsFile, 'utf8')), label);
  else add({ passed: 0, failed: 1, skipped: 0, failures: [`node:test exited ${result.status} without results`] }, label);
}

/** The Vulkan lane: the vulkan-*.test.ts files against the Vulkan addon, lavapipe exposed (only here). */
function runVulkanTests() {
  const addon = process.env.PARAKEET_VULKAN_ADDON;
  if (!addon || !existsSync(addon)) {
    add({ passed: 0, failed: 1, skipped: 0, failures: [`PARAKEET_VULKAN_ADDON=${addon ?? ''} names no built addon`] }, 'vulkan');
    return;
  }
  const files = findTests(join(root, 'test', 'native'), '.test.ts').filter((f) => /[/\\]vulkan-[^/\\]*$/.test(f));
  if (files.length === 0) {
    // A lane that ran nothing has not shown that Vulkan works: never a silent "0 failed".
    add({ passed: 0, failed: 1, skipped: 0, failures: ['no test/native/vulkan-*.test.ts files to run'] }, 'vulkan');
    return;
  }
  // PARAKEET_REQUIRE_VULKAN: a missing device fails the lane's files instead of skipping them (helpers/vulkan.ts).
  const env = {
    ...process.env,
    PARAKEET_ADDON: resolve(addon),
    GGML_VK_VISIBLE_DEVICES: process.env.GGML_VK_VISIBLE_DEVICES ?? '0',
    PARAKEET_REQUIRE_VULKAN: '1',
  };
  delete env.PARAKEET_DEVICE;
  runNodeTests(files, 'vulkan', env);
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

if (only === 'vulkan') runVulkanTests();
else if (!only || only === 'node') runNodeTests();
if (explicitFiles.length === 0 && only !== 'vulkan') {
  if (!only || only === 'e2e') runPlaywright('test/e2e/playwright.config.ts', 'e2e');
  if (!only || only === 'electron') runPlaywright('test/electron/playwright.config.ts', 'electron');
}

if (countsOut) writeFileSync(countsOut, JSON.stringify(totals));
for (const file of (process.env.PARAKEET_EXTRA_COUNTS ?? '').split(',').filter(Boolean)) {
  if (existsSync(file)) add(JSON.parse(readFileSync(file, 'utf8')), 'earlier run');
  else add({ passed: 0, failed: 1, skipped: 0, failures: [`PARAKEET_EXTRA_COUNTS: ${file} is missing`] }, 'earlier run');
}

if (totals.failures.length) {
  console.log('\nFailed:');
  for (const failure of totals.failures) console.log(`  ✗ ${failure}`);
}
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exitCode = totals.failed > 0 ? 1 : 0;
