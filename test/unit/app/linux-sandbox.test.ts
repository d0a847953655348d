// Chromium's Linux sandbox before Electron starts (app/main/util/linux-sandbox.ts)
// and `npm start` (scripts/start.mjs) with a stand-in Electron binary that ends
// as Chromium does when its sandbox cannot start: the reason and the fix are
// printed, web mode starts, and no abort is ever reported as success.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { exitStatus, linuxSandboxProblem, noSandboxNotice, sandboxAbortReason, type SandboxFacts } from '../../../app/main/util/linux-sandbox.js';
import { ensureAppCompiled, REPO } from '../../support/compiled-app.js';

const base: SandboxFacts = {
  platform: 'linux',
  uid: 1000,
  usernsWorks: true,
  apparmorRestricts: false,
  cloneDisabled: false,
  namespacesOff: false,
  helper: { path: '/repo/node_modules/electron/dist/chrome-sandbox', present: true, setuidRoot: false },
};

test('the sandbox starts with user namespaces or a setuid-root helper; elsewhere the reason and the fix', () => {
  assert.equal(linuxSandboxProblem(base), null);
  assert.equal(linuxSandboxProblem({ ...base, usernsWorks: false, helper: { ...base.helper, setuidRoot: true } }), null);
  assert.equal(linuxSandboxProblem({ ...base, platform: 'darwin', uid: 0 }), null);
  const ubuntu = linuxSandboxProblem({ ...base, usernsWorks: false, apparmorRestricts: true })!;
  assert.match(ubuntu.reason, /AppArmor restricts unprivileged user namespaces \(kernel\.apparmor_restrict_unprivileged_userns=1/);
  assert.match(ubuntu.reason, /chrome-sandbox is not owned by root with mode 4755/);
  assert.match(ubuntu.fix, /sudo chmod 4755 '\/repo\/node_modules\/electron\/dist\/chrome-sandbox'/);
  assert.match(ubuntu.fix, /AppArmor profile that allows userns/);
  assert.match(ubuntu.fix, /do not use --no-sandbox/);
  assert.match(linuxSandboxProblem({ ...base, usernsWorks: false, cloneDisabled: true })!.reason, /unprivileged_userns_clone=0/);
  assert.match(linuxSandboxProblem({ ...base, usernsWorks: false, namespacesOff: true, helper: { ...base.helper, present: false } })!.reason, /max_user_namespaces=0.*no setuid helper/);
  const root = linuxSandboxProblem({ ...base, uid: 0 })!;
  assert.match(root.reason, /as root/);
  assert.match(root.fix, /normal user/);
});

test("Chromium's sandbox aborts are recognised; other failures are not; a signal is never exit status 0", () => {
  assert.match(sandboxAbortReason('[1:FATAL:setuid_sandbox_host.cc(158)] The SUID sandbox helper binary was found, but is not configured correctly. Rather than run without sandboxing I\'m aborting now.') ?? '', /user namespaces are restricted/);
  assert.match(sandboxAbortReason('[0:ERROR:zygote_host_impl_linux.cc(101)] Running as root without --no-sandbox is not supported. See https://crbug.com/638180.') ?? '', /as root/);
  assert.match(sandboxAbortReason('[2:FATAL:zygote_host_impl_linux.cc] No usable sandbox! Update your kernel') ?? '', /sandbox could not start/);
  assert.equal(sandboxAbortReason('Segmentation fault'), null);
  assert.equal(exitStatus(0, null, constants.signals), 0);
  assert.equal(exitStatus(3, null, constants.signals), 3);
  assert.equal(exitStatus(null, 'SIGTRAP', constants.signals), 133);
  assert.equal(exitStatus(null, 'SIGSEGV', constants.signals), 139);
  assert.match(noSandboxNotice().fix, /\.deb/);
});

/** Runs `node scripts/start.mjs` (as `nobody` when this is root: root stops at the pre-check) until it prints the web URL or exits. */
function runStart(electronScript: string, asUser: boolean): Promise<{ output: string; code: number | null; url: string | null }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'parakeet-start-'));
  chmodSync(dir, 0o777);
  const binary = path.join(dir, 'electron');
  writeFileSync(binary, `#!/bin/sh\n${electronScript}\n`);
  chmodSync(binary, 0o755);
  const env = { ...process.env, PARAKEET_ELECTRON: binary, BROWSER: '' };
  const child = spawn(process.execPath, [path.join(REPO, 'scripts', 'start.mjs'), '--port', '0', '--user-data', path.join(dir, 'user-data')], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asUser ? { uid: 65534, gid: 65534 } : {}),
  });
  let output = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGTERM'), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const url = /^Open (\S+) in a browser/m.exec(output)?.[1];
      if (url) child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      resolve({ output, code, url: /^Open (\S+) in a browser/m.exec(output)?.[1] ?? null });
    });
  });
}

const isRoot = process.getuid?.() === 0;
// As root the start script runs as `nobody`, which must be able to read the checkout: a clone under a 0700 folder
// (`mktemp -d`) is not, and node then fails to find the script before anything under test runs.
const nobodyCannotRead = isRoot &&
  spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(path.join(REPO, 'scripts', 'start.mjs'))})`], { uid: 65534, gid: 65534 }).status !== 0
  ? `the checkout (${REPO}) is not readable by 'nobody', whom these runs drop to as root: make its parent folders world-readable (chmod 755)`
  : false;

test('npm start: Electron ending in its sandbox set-up → the reason, then web mode', { timeout: 120_000, skip: nobodyCannotRead }, async () => {
  ensureAppCompiled(path.join('web', 'server.js'));
  const run = await runStart(
    "echo '[9:FATAL:setuid_sandbox_host.cc(158)] The SUID sandbox helper binary was found, but is not configured correctly.' >&2; kill -TRAP $$",
    isRoot,
  );
  assert.match(run.output, /Electron stopped in its sandbox set-up: Chromium's sandbox could not start: user namespaces are restricted/);
  assert.match(run.output, /The desktop app cannot start here; starting the same app in web mode/);
  assert.ok(run.url, `web mode started:\n${run.output}`);
});

test('npm start: any other abort is passed on as its signal status, not 0', { timeout: 60_000, skip: nobodyCannotRead }, async () => {
  ensureAppCompiled(path.join('web', 'server.js'));
  const run = await runStart("echo 'something else broke' >&2; kill -SEGV $$", isRoot);
  assert.equal(run.code, 139, run.output);
  assert.equal(run.url, null);
});

test('npm start as root: stopped before Electron with the reason and the fix, web mode instead', { timeout: 120_000, skip: isRoot ? false : 'only as root' }, async () => {
  ensureAppCompiled(path.join('web', 'server.js'));
  const run = await runStart("echo 'must not run' >&2; exit 7", false);
  assert.match(run.output, /Electron refuses to start as root with its sandbox on/);
  assert.match(run.output, /Fix for the desktop app's sandbox: start Parakeet as your normal user/);
  assert.doesNotMatch(run.output, /must not run/);
  assert.ok(run.url, run.output);
});
