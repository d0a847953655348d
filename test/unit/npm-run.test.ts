// How the _electron set-up runs `npm run build` (test/support/npm-run.ts):
// never `npm` without a shell on Windows, where it is npm.cmd.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { npmInvocation } from '../support/npm-run.js';

test('under npm: its own JavaScript entry through this Node, no shell, on every OS', () => {
  const env = { npm_execpath: 'C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npm-cli.js' };
  assert.deepEqual(npmInvocation('build', 'win32', env, 'C:\\node.exe'), { file: 'C:\\node.exe', args: [env.npm_execpath, 'run', 'build'], shell: false });
  assert.deepEqual(npmInvocation('build', 'linux', { npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js' }, '/usr/bin/node').args[0], '/usr/lib/node_modules/npm/bin/npm-cli.js');
});

test('outside npm: npm.cmd through a shell on Windows, npm directly elsewhere', () => {
  assert.deepEqual(npmInvocation('build', 'win32', {}, 'node'), { file: 'npm.cmd', args: ['run', 'build'], shell: true });
  assert.deepEqual(npmInvocation('build', 'linux', {}, 'node'), { file: 'npm', args: ['run', 'build'], shell: false });
  // pnpm/yarn set npm_execpath to something that is not npm's JavaScript entry: not run through Node.
  assert.equal(npmInvocation('build', 'darwin', { npm_execpath: '/usr/local/bin/pnpm' }, 'node').file, 'npm');
});
