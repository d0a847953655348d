// `npm start` (after `npm run build`): the desktop app in Electron when its
// binary is on this machine; otherwise the same app in web mode, with a clear
// note and the URL to open. Never fails just because Electron is missing.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** The Electron binary path, or the reason there is none (checked in a child: require('electron') throws without it). */
function findElectron() {
  const probe = spawnSync(process.execPath, ['-e', "process.stdout.write(String(require('electron')))"], {
    cwd: root,
    encoding: 'utf8',
    timeout: 15_000,
  });
  const out = (probe.stdout ?? '').trim();
  if (probe.status === 0 && out && existsSync(out)) return { path: out };
  const lines = (probe.stderr ?? '').split('\n').map((l) => l.trim());
  const reason = lines.find((l) => /^\w*Error: /.test(l)) || 'require("electron") gave no binary';
  return { reason };
}

let electron = findElectron();
const installer = join(root, 'node_modules', 'electron', 'install.js');
if (!electron.path && existsSync(installer) && !process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
  // One try at the lazy download; offline machines fail fast or hit the timeout.
  process.stderr.write('Electron binary missing; trying its installer once…\n');
  const install = spawnSync(process.execPath, [installer], { cwd: join(root, 'node_modules', 'electron'), encoding: 'utf8', timeout: 60_000 });
  electron = findElectron();
  if (!electron.path) {
    const why = `${install.stderr ?? ''}`.split('\n').map((l) => l.trim()).find((l) => /^\w*Error: /.test(l));
    process.stderr.write(`the installer could not fetch it${why ? ` (${why})` : install.error ? ` (${install.error.message})` : ''}\n`);
  }
}

function forward(child) {
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

if (electron.path) {
  forward(spawn(electron.path, [root, ...args], { cwd: root, stdio: 'inherit' }));
} else {
  // Electron's own error says "delete node_modules/electron and try again", which does nothing offline: say
  // what happened in our words (issue 44 item 10); its text goes last, for whoever debugs the install.
  process.stdout.write(
    'Electron could not be downloaded (this machine may be offline), so the desktop window cannot open; ' +
      'starting the same app in web mode instead.\n' +
      `(Electron said: ${electron.reason.replace(/,? *please delete[^.]*\.?/i, '').trim()})\n`,
  );
  const compiled = join(root, 'dist', 'app', 'web', 'server.js');
  const command = existsSync(compiled)
    ? [compiled, ...args]
    : ['--import', 'tsx', join(root, 'app', 'web', 'server.ts'), ...args];
  const child = spawn(process.execPath, command, { cwd: root, stdio: ['inherit', 'pipe', 'inherit'] });
  forward(child);
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
