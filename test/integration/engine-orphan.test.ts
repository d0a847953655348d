// The engine process never outlives the server that started it: the server SIGKILLed mid-dictation (no
// chance to stop anything) leaves an engine that notices its parent is gone and exits within seconds, so a
// restart does not find a second engine running beside a forgotten one.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { SessionInfo } from '../../app/ipc/contract.js';
import { processAlive } from '../../app/main/util/instance-lock.js';
import { tempDir, tinyModel } from './helpers.js';
import { startServerProcess } from './server-process.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The engine processes started by `parent` (the forked engine-process entry). */
function enginesOf(parent: number): number[] {
  const ps = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' });
  return ps.stdout.split('\n').map((line) => line.trim().split(/\s+/)).filter((f) => Number(f[1]) === parent && f.slice(2).join(' ').includes('engine-process')).map((f) => Number(f[0]));
}

test('the server SIGKILLed mid-dictation: its engine process exits on its own', { skip: process.platform === 'win32' && 'uses ps', timeout: 120_000 }, async () => {
  const dir = tempDir('engine-orphan');
  const { child, client } = await startServerProcess(`${dir}/user-data`, tinyModel(dir));
  let engines: number[] = [];
  for (let i = 0; i < 100 && engines.length === 0; i += 1) {
    engines = enginesOf(child.pid!);
    if (!engines.length) await sleep(100);
  }
  assert.equal(engines.length, 1, 'one engine process under the server');
  const started = await client.invoke<SessionInfo>('dictation:start', { sampleRate: 16000 });
  assert.ok(started.ok, JSON.stringify(started));
  const stream = Number(started.value.sessionId.slice(1));
  // Speech-like noise, so segments close and the engine decodes while the server dies.
  for (let i = 0; i < 3000; i += 1) {
    const frame = new Float32Array(640).map(() => (Math.random() - 0.5) * 0.6);
    client.sendAudio(stream, frame, i * 640);
    if (i % 50 === 0) await sleep(10);
  }
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const engine = engines[0]!;
  const deadline = Date.now() + 10_000;
  while (processAlive(engine) && Date.now() < deadline) await sleep(100);
  const orphaned = processAlive(engine);
  if (orphaned) process.kill(engine, 'SIGKILL');
  assert.equal(orphaned, false, `engine ${engine} still ran 10 s after its server was SIGKILLed`);
});

test('an engine whose parent dies without a word on its port (Electron\'s utility process) exits by its watchdog', { skip: process.platform === 'win32' && 'uses ps', timeout: 60_000 }, async () => {
  const entry = fileURLToPath(new URL('../../app/engine-process/engine-process.ts', import.meta.url));
  const port = fileURLToPath(new URL('../support/utility-parent-port.ts', import.meta.url));
  // A parent that starts the engine with a utility-style port, prints its pid and waits to be killed.
  const parentScript = `const { spawn } = require('node:child_process');
const e = spawn(process.execPath, ['--import', 'tsx', '--import', ${JSON.stringify(port)}, ${JSON.stringify(entry)}], { stdio: 'ignore' });
console.log(e.pid); setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['-e', parentScript], { stdio: ['ignore', 'pipe', 'inherit'] });
  const engine = await new Promise<number>((resolve) => parent.stdout!.once('data', (c: Buffer) => resolve(Number(c.toString().trim()))));
  await sleep(3000); // the engine is up (tsx compiled it) before its parent dies
  assert.ok(processAlive(engine), 'the engine runs while its parent does');
  parent.kill('SIGKILL');
  const deadline = Date.now() + 10_000;
  while (processAlive(engine) && Date.now() < deadline) await sleep(100);
  const orphaned = processAlive(engine);
  if (orphaned) process.kill(engine, 'SIGKILL');
  assert.equal(orphaned, false, `engine ${engine} still ran 10 s after its parent was SIGKILLed`);
});
