// The cached pinned ggml tree (scripts/ggml-source.mjs) is built from only while it holds our guard hunks
// (scripts/ggml-patches.mjs) as they are now: a hunk edited or deleted since the tree was patched makes the
// tree stale (fetched again, not reused, not patched twice); a hunk added since is applied in place; a stamp
// that cannot be read is fetched over, not a failed build. The fetch itself is replaced by a fake tree here.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs script without types (it runs before any build)
import { GGML_PIN, ensureGgmlSource } from '../../scripts/ggml-source.mjs';
// @ts-expect-error: a plain .mjs script without types
import { GGML_PATCHES, applyGgmlPatches } from '../../scripts/ggml-patches.mjs';

interface Patch { id: string; file: string; find: string; replace: string }
const patches = GGML_PATCHES as Patch[];
const pin = GGML_PIN as { llamaCppCommit: string };

/** A llama.cpp-shaped tree whose files hold the upstream text of every hunk; returns its folder. */
function fakeUpstream(dir: string): string {
  mkdirSync(join(dir, 'ggml', 'include'), { recursive: true });
  writeFileSync(join(dir, 'ggml', 'CMakeLists.txt'), 'set(GGML_VERSION_MAJOR 0)\n');
  writeFileSync(join(dir, 'ggml', 'include', 'ggml.h'), '');
  const files = new Map<string, string>();
  for (const p of patches) files.set(p.file, `${files.get(p.file) ?? '// upstream\n'}${p.find}// between\n`);
  for (const [file, text] of files) {
    mkdirSync(dirname(join(dir, 'ggml', file)), { recursive: true });
    writeFileSync(join(dir, 'ggml', file), text);
  }
  return dir;
}

/** A cache holding the pinned tree patched by `hunks`, with a stamp listing `listed`. */
function cacheWith(hunks: Patch[], listed: string[]): { cacheDir: string; treeDir: string } {
  const cacheDir = mkdtempSync(join(tmpdir(), 'parakeet-ggml-source-'));
  const treeDir = join(cacheDir, `llama.cpp-${pin.llamaCppCommit.slice(0, 12)}`);
  fakeUpstream(treeDir);
  for (const h of hunks) {
    const path = join(treeDir, 'ggml', h.file);
    writeFileSync(path, readFileSync(path, 'utf8').replace(h.find, h.replace));
  }
  writeFileSync(join(treeDir, '.parakeet-source.json'), JSON.stringify({ patches: listed }));
  return { cacheDir, treeDir };
}

function fakeFetch(): { fetches: number; fetchTree: (work: string) => string } {
  const state = {
    fetches: 0,
    fetchTree: (work: string): string => {
      state.fetches += 1;
      return fakeUpstream(join(work, 'tree'));
    },
  };
  return state;
}

const count = (text: string, part: string): number => text.split(part).length - 1;

/** Every hunk in its current form exactly once, and no other guard. */
function assertCurrentGuards(ggmlDir: string): void {
  for (const p of patches) {
    const text = readFileSync(join(ggmlDir, p.file), 'utf8');
    assert.equal(count(text, p.replace), 1, `${p.id} applied once in its current form`);
  }
  const guards = patches.reduce((n, p) => n + count(p.replace, '#if '), 0);
  const files = [...new Set(patches.map((p) => p.file))];
  const found = files.reduce((n, f) => n + count(readFileSync(join(ggmlDir, f), 'utf8'), '#if '), 0);
  assert.equal(found, guards, 'no guard left over from an older hunk');
}

test('a cached tree with every hunk in its current form is used as it is', () => {
  const { cacheDir } = cacheWith(patches, patches.map((p) => p.id));
  try {
    const fake = fakeFetch();
    const result = ensureGgmlSource({ cacheDir, fetchTree: fake.fetchTree }) as { ggmlDir: string; missingPatches: string[] };
    assert.equal(fake.fetches, 0);
    assert.deepEqual(result.missingPatches, []);
    assertCurrentGuards(result.ggmlDir);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

test('a cached tree patched with an older version of a hunk is fetched again, not built from', () => {
  const edited = patches.map((p) => (p.id === 'vulkan-layer-settings'
    ? { ...p, replace: p.replace.replace('parakeet guard:', 'parakeet guard (older wording):') }
    : p));
  assert.notDeepEqual(edited, patches);
  const { cacheDir } = cacheWith(edited, patches.map((p) => p.id));
  try {
    const fake = fakeFetch();
    const result = ensureGgmlSource({ cacheDir, fetchTree: fake.fetchTree }) as { ggmlDir: string };
    assert.equal(fake.fetches, 1, 'the stale tree is fetched again');
    assertCurrentGuards(result.ggmlDir);
    assert.ok(!readFileSync(join(result.ggmlDir, 'src/ggml-vulkan/ggml-vulkan.cpp'), 'utf8').includes('older wording'));
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

test('a cached tree carrying a hunk since deleted from ggml-patches.mjs is fetched again', () => {
  const { cacheDir } = cacheWith(patches, [...patches.map((p) => p.id), 'a-hunk-since-deleted']);
  try {
    const fake = fakeFetch();
    ensureGgmlSource({ cacheDir, fetchTree: fake.fetchTree });
    assert.equal(fake.fetches, 1);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

test('a hunk added after the tree was fetched is applied in place, once', () => {
  const older = patches.filter((p) => p.id !== 'vulkan-xe-decode-dispatch');
  const { cacheDir, treeDir } = cacheWith(older, older.map((p) => p.id));
  try {
    const fake = fakeFetch();
    const result = ensureGgmlSource({ cacheDir, fetchTree: fake.fetchTree }) as { ggmlDir: string };
    assert.equal(fake.fetches, 0);
    assertCurrentGuards(result.ggmlDir);
    const stamp = JSON.parse(readFileSync(join(treeDir, '.parakeet-source.json'), 'utf8')) as { patches: string[] };
    assert.deepEqual(stamp.patches, patches.map((p) => p.id));
    // A second build changes nothing.
    ensureGgmlSource({ cacheDir, fetchTree: fake.fetchTree });
    assert.equal(fake.fetches, 0);
    assertCurrentGuards(result.ggmlDir);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

test('a cached tree whose stamp cannot be read is fetched again instead of failing every build', () => {
  const { cacheDir, treeDir } = cacheWith(patches, patches.map((p) => p.id));
  try {
    writeFileSync(join(treeDir, '.parakeet-source.json'), '{"patches": ["vulkan-');
    const fake = fakeFetch();
    const result = ensureGgmlSource({ cacheDir, fetchTree: fake.fetchTree }) as { ggmlDir: string };
    assert.equal(fake.fetches, 1);
    assertCurrentGuards(result.ggmlDir);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

test('the fake upstream tree takes every hunk (the fixture matches ggml-patches.mjs)', () => {
  const dir = fakeUpstream(mkdtempSync(join(tmpdir(), 'parakeet-ggml-fake-')));
  try {
    assert.deepEqual(applyGgmlPatches(join(dir, 'ggml'), { pinnedCommit: pin.llamaCppCommit }), patches.map((p) => p.id));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
