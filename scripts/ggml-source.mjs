// Obtains the ggml source tree the native addon is built from.
//
// ggml has no Debian or npm package of its own. The npm package
// `node-llama-cpp` ships a llama.cpp release (ggml inside) as a git bundle,
// `llama/gitRelease.bundle`. We take that package at one exact version from
// the npm registry, check the tarball against a pinned integrity value, and
// clone the bundle into a cache folder. `GGML_SOURCE_DIR` overrides all of
// this with any other ggml checkout (the folder that holds `ggml/`, or the
// `ggml` folder itself).
//
// The fetched tree gets our guard hunks (scripts/ggml-patches.mjs: what they are and why) before it is
// marked ready; a tree fetched before a hunk existed gets it on the next build. A GGML_SOURCE_DIR checkout
// is never edited: the result says which hunks it lacks.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GGML_PATCHES, appliedGgmlPatches, applyGgmlPatches } from './ggml-patches.mjs';

export const GGML_PIN = Object.freeze({
  package: 'node-llama-cpp',
  version: '3.22.1',
  integrity:
    'sha512-bltIipuWmc123H7tMIgDGKSsSrhmhlQYeVUC48XTjVW7XGJJiJJyCdlTMzQ/LiWoPkGDpcL4FviDpgw7qfTiDw==',
  // The commit inside gitRelease.bundle and the ggml version it carries.
  llamaCppCommit: 'de3ff815ea7d559ee917f063901b8986f038abc6',
  ggmlVersion: '0.25.1',
});

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function defaultCacheDir() {
  return process.env.PARAKEET_BUILD_CACHE ?? join(repoRoot, '.cache');
}

function log(message) {
  process.stderr.write(`[ggml-source] ${message}\n`);
}

/** Returns the `ggml` folder of a checkout, or throws with what was looked for. */
export function ggmlDirOf(root) {
  const candidates = [join(root, 'ggml'), root];
  for (const dir of candidates) {
    if (existsSync(join(dir, 'CMakeLists.txt')) && existsSync(join(dir, 'include', 'ggml.h'))) return dir;
  }
  throw new Error(`no ggml tree in ${root}: expected ${join(root, 'ggml', 'include', 'ggml.h')} or ${join(root, 'include', 'ggml.h')}`);
}

function sha512Integrity(file) {
  const digest = createHash('sha512').update(readFileSync(file)).digest('base64');
  return `sha512-${digest}`;
}

function run(command, args, options = {}) {
  return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...options });
}

/**
 * Ensures the pinned ggml source (with our guard hunks) is in the cache and returns
 * `{ ggmlDir, commit, version, source, patches, missingPatches }`. `fetchTree(work)` fetches the pinned tree into
 * the folder `work` and returns its path (tests replace it; the build fetches from the npm registry).
 */
export function ensureGgmlSource({ cacheDir = defaultCacheDir(), fetchTree = fetchPinnedTree } = {}) {
  const override = process.env.GGML_SOURCE_DIR;
  if (override) {
    const ggmlDir = ggmlDirOf(resolve(override));
    let commit = 'unknown';
    try {
      commit = run('git', ['-C', ggmlDir, 'rev-parse', 'HEAD']).trim();
    } catch {
      // not a git checkout: the commit stays unknown and is reported as such
    }
    const patches = appliedGgmlPatches(ggmlDir);
    const missingPatches = GGML_PATCHES.map((patch) => patch.id).filter((id) => !patches.includes(id));
    return { ggmlDir, commit, version: readGgmlVersion(ggmlDir), source: `GGML_SOURCE_DIR=${override}`, patches, missingPatches };
  }

  const treeDir = join(cacheDir, `llama.cpp-${GGML_PIN.llamaCppCommit.slice(0, 12)}`);
  const stamp = join(treeDir, '.parakeet-source.json');
  const cached = cachedTreeState(treeDir, stamp);
  if (cached.usable) return pinnedResult(treeDir, stamp);
  if (cached.reason) log(`the cached tree ${treeDir} is stale (${cached.reason}); fetching it again`);

  mkdirSync(cacheDir, { recursive: true });
  const work = join(cacheDir, `tmp-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const cloneDir = fetchTree(work);
    const patches = applyGgmlPatches(ggmlDirOf(cloneDir), { pinnedCommit: GGML_PIN.llamaCppCommit });
    log(`applied our ggml guards: ${patches.join(', ')}`);
    writeFileSync(
      join(cloneDir, '.parakeet-source.json'),
      JSON.stringify({ ...GGML_PIN, fetchedAt: new Date().toISOString(), patches }, null, 2),
    );
    rmSync(treeDir, { recursive: true, force: true });
    renameSync(cloneDir, treeDir);
    log(`ggml ${GGML_PIN.ggmlVersion} (llama.cpp ${GGML_PIN.llamaCppCommit.slice(0, 12)}) ready in ${treeDir}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return pinnedResult(treeDir, stamp);
}

/** Fetches the pinned llama.cpp tree into `work` (npm pack, integrity check, git clone of the bundle); returns its folder. */
export function fetchPinnedTree(work) {
  log(`fetching ${GGML_PIN.package}@${GGML_PIN.version} from the npm registry`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  run(npm, ['pack', `${GGML_PIN.package}@${GGML_PIN.version}`, '--pack-destination', work, '--silent'], {
    shell: process.platform === 'win32',
    cwd: tmpdir(),
  });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack produced no tarball in ${work}`);
  const tarballPath = join(work, tarball);
  const integrity = sha512Integrity(tarballPath);
  if (integrity !== GGML_PIN.integrity) {
    throw new Error(
      `${tarball}: integrity mismatch.\n  expected ${GGML_PIN.integrity}\n  got      ${integrity}\n` +
        'The registry served a different file than the one this build is pinned to; refusing to build from it.',
    );
  }
  log(`integrity ok (${integrity.slice(0, 24)}…); extracting the llama.cpp bundle`);
  run('tar', ['-xzf', tarballPath, '-C', work, 'package/llama/gitRelease.bundle']);
  const bundle = join(work, 'package', 'llama', 'gitRelease.bundle');
  const cloneDir = join(work, 'tree');
  run('git', ['clone', '--quiet', bundle, cloneDir]);
  const commit = run('git', ['-C', cloneDir, 'rev-parse', 'HEAD']).trim();
  if (commit !== GGML_PIN.llamaCppCommit) {
    throw new Error(`bundle commit ${commit} differs from the pinned ${GGML_PIN.llamaCppCommit}`);
  }
  rmSync(join(cloneDir, '.git'), { recursive: true, force: true });
  return cloneDir;
}

/**
 * Whether the cached pinned tree can be built from: `{ usable: true }`, or `{ usable: false, reason }` (reason
 * empty when there is no tree yet). The stamp lists the hunks applied to the tree; each listed hunk must be in
 * the tree in its current form. A hunk edited (or deleted) in scripts/ggml-patches.mjs since the tree was
 * patched cannot be undone in place, so such a tree is fetched again; a hunk added since is applied in place
 * (pinnedResult). A stamp that cannot be read counts as stale, not as a failed build.
 */
export function cachedTreeState(treeDir, stamp = join(treeDir, '.parakeet-source.json')) {
  if (!existsSync(stamp)) return { usable: false, reason: '' };
  let listed;
  let ggmlDir;
  try {
    const recorded = JSON.parse(readFileSync(stamp, 'utf8'));
    listed = Array.isArray(recorded.patches) ? recorded.patches : [];
    ggmlDir = ggmlDirOf(treeDir);
  } catch (error) {
    return { usable: false, reason: `unreadable: ${error.message}` };
  }
  const wanted = GGML_PATCHES.map((patch) => patch.id);
  const removed = listed.filter((id) => !wanted.includes(id));
  if (removed.length) return { usable: false, reason: `it has hunks no longer in scripts/ggml-patches.mjs: ${removed.join(', ')}` };
  const present = appliedGgmlPatches(ggmlDir);
  const changed = listed.filter((id) => !present.includes(id));
  if (changed.length) return { usable: false, reason: `hunks changed in scripts/ggml-patches.mjs since it was patched: ${changed.join(', ')}` };
  return { usable: true };
}

/** The result for the cached pinned tree; applies the guard hunks its stamp does not list yet. */
function pinnedResult(treeDir, stamp) {
  const ggmlDir = ggmlDirOf(treeDir);
  const recorded = JSON.parse(readFileSync(stamp, 'utf8'));
  const listed = Array.isArray(recorded.patches) ? recorded.patches : [];
  const wanted = GGML_PATCHES.map((patch) => patch.id);
  if (wanted.some((id) => !listed.includes(id))) {
    const applied = applyGgmlPatches(ggmlDir, { pinnedCommit: GGML_PIN.llamaCppCommit });
    if (applied.length) log(`applied our ggml guards to the cached tree: ${applied.join(', ')}`);
    // Written whole, then renamed over the stamp: an interrupted write never leaves a half stamp.
    const next = `${stamp}.tmp-${process.pid}`;
    writeFileSync(next, JSON.stringify({ ...recorded, patches: wanted }, null, 2));
    renameSync(next, stamp);
  }
  return {
    ggmlDir, commit: GGML_PIN.llamaCppCommit, version: GGML_PIN.ggmlVersion,
    source: `${GGML_PIN.package}@${GGML_PIN.version}`, patches: wanted, missingPatches: [],
  };
}

function readGgmlVersion(ggmlDir) {
  const text = readFileSync(join(ggmlDir, 'CMakeLists.txt'), 'utf8');
  const part = (name) => text.match(new RegExp(`set\\(GGML_VERSION_${name}\\s+(\\d+)\\)`))?.[1] ?? '?';
  return `${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = ensureGgmlSource();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
