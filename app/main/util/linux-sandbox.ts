// Whether Chromium's sandbox can start on this Linux machine, and what to tell
// the user when it cannot. Used before Electron starts (scripts/start.mjs:
// `npm start`), because the sandbox is set up before any app code runs: a
// failure aborts the process (SIGTRAP) with one of Chromium's messages, and
// by main's first line it is too late. Never a silent --no-sandbox.
//
// Chromium's Linux sandbox needs either unprivileged user namespaces or the
// setuid helper `chrome-sandbox` next to the binary (owned by root, mode
// 4755). Ubuntu ≥ 23.10 restricts user namespaces through AppArmor
// (kernel.apparmor_restrict_unprivileged_userns=1) for programs without a
// profile that allows `userns`; older Debian kernels had
// kernel.unprivileged_userns_clone=0; user.max_user_namespaces=0 turns them
// off. Running as root is refused outright ("Running as root without
// --no-sandbox is not supported", crbug.com/638180).
//
// What the packages do (electron-builder 26.17.0, app-builder-lib templates):
// the .deb installs an AppArmor profile allowing `userns` for
// /opt/<product>/<executable> and makes chrome-sandbox setuid where user
// namespaces fail, so it starts with the sandbox; the AppImage's AppRun probes
// `unshare -Ur true` and adds --no-sandbox when that fails, so it starts
// without one. main tells the user about the latter (noSandboxNotice).
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface SandboxFacts {
  platform: NodeJS.Platform;
  uid: number | null;
  /** `unshare --user --map-root-user true` succeeded (what an unconfined program may do). */
  usernsWorks: boolean;
  /** /proc/sys/kernel/apparmor_restrict_unprivileged_userns = 1 */
  apparmorRestricts: boolean;
  /** /proc/sys/kernel/unprivileged_userns_clone = 0 */
  cloneDisabled: boolean;
  /** /proc/sys/user/max_user_namespaces = 0 */
  namespacesOff: boolean;
  /** chrome-sandbox next to the binary, and whether it is root-owned and setuid. */
  helper: { path: string; present: boolean; setuidRoot: boolean };
}

export interface SandboxProblem {
  reason: string;
  fix: string;
}

function sysctl(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

/** Reads this machine's facts for the Electron binary at `electronBinary`. */
export function readSandboxFacts(electronBinary: string): SandboxFacts {
  const helperPath = path.join(path.dirname(electronBinary), 'chrome-sandbox');
  let helper = { path: helperPath, present: false, setuidRoot: false };
  try {
    const st = statSync(helperPath);
    helper = { path: helperPath, present: true, setuidRoot: st.uid === 0 && (st.mode & 0o4000) !== 0 && (st.mode & 0o111) !== 0 };
  } catch {
    // no helper
  }
  let usernsWorks = false;
  if (process.platform === 'linux') {
    try {
      execFileSync('unshare', ['--user', '--map-root-user', 'true'], { stdio: 'ignore', timeout: 5000 });
      usernsWorks = true;
    } catch {
      usernsWorks = false;
    }
  }
  return {
    platform: process.platform,
    uid: typeof process.getuid === 'function' ? process.getuid() : null,
    usernsWorks,
    apparmorRestricts: sysctl('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') === '1',
    cloneDisabled: sysctl('/proc/sys/kernel/unprivileged_userns_clone') === '0',
    namespacesOff: sysctl('/proc/sys/user/max_user_namespaces') === '0',
    helper,
  };
}

/** Why Electron would abort in its sandbox set-up here, with the fix; null where it can start. */
export function linuxSandboxProblem(facts: SandboxFacts): SandboxProblem | null {
  if (facts.platform !== 'linux') return null;
  if (facts.uid === 0) {
    return {
      reason: 'Electron refuses to start as root with its sandbox on (Chromium: "Running as root without --no-sandbox is not supported")',
      fix: 'start Parakeet as your normal user, not as root or with sudo',
    };
  }
  if (facts.usernsWorks || facts.helper.setuidRoot) return null;
  const why = facts.apparmorRestricts
    ? 'AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu 23.10 and later)'
    : facts.cloneDisabled
      ? 'unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)'
      : facts.namespacesOff
        ? 'user namespaces are turned off (user.max_user_namespaces=0)'
        : 'this system does not let programs create user namespaces';
  const helper = facts.helper.present ? `${facts.helper.path} is not owned by root with mode 4755` : `there is no setuid helper at ${facts.helper.path}`;
  return {
    reason: `Chromium's sandbox cannot start: ${why}, and ${helper}`,
    fix:
      `either make the helper setuid (sudo chown root:root '${facts.helper.path}' && sudo chmod 4755 '${facts.helper.path}'), ` +
      `or add an AppArmor profile that allows userns for '${path.join(path.dirname(facts.helper.path), 'electron')}' (the installed .deb ships one for the app), ` +
      'or allow user namespaces (sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0); do not use --no-sandbox',
  };
}

/** Chromium's sandbox abort in an Electron process's stderr, as a reason; null when it is something else. */
export function sandboxAbortReason(stderr: string): string | null {
  if (/Running as root without --no-sandbox is not supported/.test(stderr)) return 'Electron refuses to start as root with its sandbox on';
  if (/SUID sandbox helper binary was found, but is not configured correctly/.test(stderr)) {
    return 'Chromium\'s sandbox could not start: user namespaces are restricted here and chrome-sandbox is not setuid root';
  }
  if (/No usable sandbox!/.test(stderr)) {
    return 'Chromium\'s sandbox could not start (no usable user namespaces or setuid helper)';
  }
  return null;
}

/** Exit status for a child that ended by a signal: 128 + its number, as shells report it (never 0). */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null, signals: Record<string, number>): number {
  if (code !== null) return code;
  return 128 + (signal ? signals[signal] ?? 0 : 0) || 1;
}

/** main's notice when it runs without the sandbox (the AppImage's AppRun adds --no-sandbox where namespaces fail). */
export function noSandboxNotice(): SandboxProblem {
  return {
    reason: 'Parakeet is running without Chromium\'s sandbox (started with --no-sandbox; the AppImage does this where this system restricts user namespaces).',
    fix: 'Install the .deb package instead (it brings an AppArmor profile that lets the sandbox start), or allow user namespaces for the AppImage with an AppArmor profile.',
  };
}
