// `npm start` (after `npm run build`): the desktop app in Electron when its
// binary is on this machine and can start; otherwise the same app in web mode,
// with a clear note of why and the URL to open. On Linux, Chromium's sandbox
// is checked first (app/main/util/linux-sandbox.ts): where it cannot start
// (user namespaces restricted, running as root) Electron would abort before
// any app code runs, so the reason and its fix are printed and web mode
// starts instead. Electron is never started with --no-sandbox. If Electron
// still ends in its sandbox set-up, that is reported the same way; any other
// exit is passed on as its status (a signal as 128 + its number, never 0).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** The sandbox checks, compiled (npm start builds first) or from source through tsx. */
async function sandboxModule() {
  const compiled = join(root, 'dist', 'app', 'main', 'util', 'linux-sandbox.js');
  if (existsSync(compiled)) return import(pathToFileURL(compiled).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(join(root, 'app', 'main', 'util', 'linux-sandbox.ts')).href);
}

/** The Electron binary path, or the reason there is none (checked in a child: require('electron') throws without it). */
function findElectron() {
  const override = process.env.PARAKEET_ELECTRON;
  if (override) return existsSync(override) ? { path: override } : { reason: `PARAKEET_ELECTRON=${override} does not exist` };
  const probe = spawnSync(process.execPath, ['-e', "process.stdout.write(String(require('electron')))"], {
    cwd: root,
    encoding: 'utf8',
    timeout: 15_000,
  });
  const out = (probe.stdout ?? '').trim();
  if (probe.status === 0 && out && existsSync(out)) return { path: out, helperDir: dirname(out) };
  const lines = (probe.stderr ?? '').split('\n').map((l) => l.trim());
  const reason = lines.find((l) => /^\w*Error: /.test(l)) || 'require("electron") gave no binary';
  return { reason, helperDir: join(root, 'node_modules', 'electron', 'dist') };
}

let electron = findElectron();
const installer = join(root, 'node_modules', 'electron', 'install.js');
if (!electron.path && !process.env.PARAKEET_ELECTRON && existsSync(installer) && !process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
  // One try at the lazy download; offline machines fail fast or hit the timeout.
  process.stderr.write('Electron binary missing; trying its installer once…\n');
  const install = spawnSync(process.execPath, [installer], { cwd: join(root, 'node_modules', 'electron'), encoding: 'utf8', timeout: 60_000 });
  electron = findElectron();
  if (!electron.path) {
    const why = `${install.stderr ?? ''}`.split('\n').map((l) => l.trim()).find((l) => /^\w*Error: /.test(l));
    process.stderr.write(`the installer could not fetch it${why ? ` (${why})` : install.error ? ` (${install.error.message})` : ''}\n`);
  }
}

const sandbox = await sandboxModule();
// Where Electron is (or would be): its sandbox would fail here for this reason, with this fix.
const problem = sandbox.linuxSandboxProblem(sandbox.readSandboxFacts(electron.path ?? join(electron.helperDir, 'electron')));

function forwardSignals(child) {
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
}

function startWebMode(why) {
  process.stdout.write(`${why}; starting the same app in web mode.\n`);
  const compiled = join(root, 'dist', 'app', 'web', 'server.js');
  const command = existsSync(compiled)
    ? [compiled, ...args]
    : ['--import', 'tsx', join(root, 'app', 'web', 'server.ts'), ...args];
  const child = spawn(process.execPath, command, { cwd: root, stdio: ['inherit', 'pipe', 'inherit'] });
  forwardSignals(child);
  child.on('exit', (code, signal) => process.exit(sandbox.exitStatus(code, signal, constants.signals)));
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    buffered += chunk;
    const match = /PARAKEET_WEB_URL=(\S+)/.exec(buffered);
    if (!match) return;
    buffered = '';
    const url = match[1];
    process.stdout.write(`Open ${url} in a browser (Chromium or Firefox). Press Ctrl+C to stop.\n`);
    if (process.env.BROWSER) {
      // Only a configured browser, detached: starting the app must never wait on it.
      try {
        const browser = spawn(process.env.BROWSER, [url], { detached: true, stdio: 'ignore' });
        browser.on('error', () => process.stderr.write(`could not start $BROWSER (${process.env.BROWSER})\n`));
        browser.unref();
      } catch {
        process.stderr.write(`could not start $BROWSER (${process.env.BROWSER})\n`);
      }
    }
  });
}

function startElectron(binary) {
  // stderr is watched for Chromium's sandbox abort and passed on as it comes.
  const child = spawn(binary, [root, ...args], { cwd: root, stdio: ['inherit', 'inherit', 'pipe'] });
  forwardSignals(child);
  let tail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    tail = (tail + chunk).slice(-8000);
  });
  child.on('exit', (code, signal) => {
    const abort = code !== 0 ? sandbox.sandboxAbortReason(tail) : null;
    if (abort) {
      process.stderr.write(`\nElectron stopped in its sandbox set-up: ${abort}.\n`);
      startWebMode('The desktop app cannot start here');
      return;
    }
    process.exit(sandbox.exitStatus(code, signal, constants.signals));
  });
}

if (electron.path && !problem) {
  startElectron(electron.path);
} else {
  const reasons = [];
  // Electron's own error says "delete node_modules/electron and try again", which does nothing offline: say
  // what happened in our words (issue 44 item 10); its text follows, for whoever debugs the install.
  if (!electron.path) {
    reasons.push('Electron could not be downloaded (this machine may be offline), so the desktop window cannot open ' +
      `(Electron said: ${electron.reason.replace(/,? *please delete[^.]*\.?/i, '').trim()})`);
  }
  if (problem) {
    reasons.push(electron.path ? problem.reason : `and once installed it would not start here either: ${problem.reason}`);
    process.stderr.write(`Fix for the desktop app's sandbox: ${problem.fix}.\n`);
  }
  startWebMode(reasons.join('; '));
}
