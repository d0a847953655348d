// Electron suite set-up: say clearly when there is no Electron binary (every
// spec then skips itself); otherwise build main, preload and renderer and the
// test assets.
import { ensureModel, ensureRendererBuilt, ensureSpeech } from '../e2e/support/assets.js';
import { REPO_ROOT } from '../e2e/support/paths.js';
import { npmRun } from '../support/npm-run.js';
import { electronBinary, ELECTRON_SKIP_REASON } from './support/electron-app.js';

export default function globalSetup(): void {
  if (!electronBinary()) {
    process.stdout.write(`\n[electron] SKIP: ${ELECTRON_SKIP_REASON}\n\n`);
    return;
  }
  // main (tsc), preload (esbuild) and renderer (vite), as `npm start` does (through a shell-free npm: Windows too).
  npmRun('build', REPO_ROOT);
  ensureRendererBuilt();
  ensureModel();
  ensureSpeech();
}
