// One instance per user-data folder: a live instance in another process is
// refused with what to do; a dead one's lock is taken over; the same process
// may re-enter; release removes only the taker's file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LOCK_FILE, acquireInstanceLock, processIdentity } from '../../../app/main/util/instance-lock.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'parakeet-lock-'));
  dirs.push(dir);
  return dir;
}

test('a live instance in another process is refused, naming it and what to do', async () => {
  const dir = folder();
  // A real other process holds the lock: a child that stays alive until we end it.
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: child.pid, host: hostname(), startedAt: '2026-11-30T10:00:00Z', mode: 'electron' }));
    await assert.rejects(acquireInstanceLock(dir, { mode: 'web' }), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'USER_DATA_IN_USE');
      assert.match(error.message, new RegExp(`electron, process ${child.pid}`));
      assert.match(error.message, /PARAKEET_USER_DATA_DIR/);
      return true;
    });
    assert.ok(existsSync(join(dir, LOCK_FILE)), 'the other instance keeps its lock');
  } finally {
    child.kill();
  }
  await new Promise((resolve) => child.once('exit', resolve));
  // Once it is gone, its lock is stale and taken over.
  const lock = await acquireInstanceLock(dir, { mode: 'web' });
  assert.equal(JSON.parse(readFileSync(lock.file, 'utf8')).pid, process.pid);
  await lock.release();
  assert.equal(existsSync(lock.file), false);
});

test('another host is never taken over automatically; the message says which file to delete', async () => {
  const dir = folder();
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 4242, host: 'other-machine', startedAt: 'x', mode: 'web' }));
  await assert.rejects(acquireInstanceLock(dir, { mode: 'web', alive: () => false }), /on other-machine.*delete .*instance\.lock/);
});

test('an old unreadable lock (cut by a power loss) is stale; a fresh one is waited for', async () => {
  const dir = folder();
  const file = join(dir, LOCK_FILE);
  writeFileSync(file, '');
  const old = new Date(Date.now() - 60_000);
  utimesSync(file, old, old);
  const lock = await acquireInstanceLock(dir, { mode: 'web' });
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).mode, 'web');
  await lock.release();

  writeFileSync(file, '');
  // A fresh empty file: another instance is writing it. It gets its moment, then the file is judged again.
  setTimeout(() => writeFileSync(file, JSON.stringify({ pid: 999_999, host: hostname(), startedAt: 'x', mode: 'electron' })), 100);
  await assert.rejects(acquireInstanceLock(dir, { mode: 'web', alive: (pid) => pid === 999_999 }), /process 999999/);
});

test('the same process may take it again; only the first taker removes the file', async () => {
  const dir = folder();
  const first = await acquireInstanceLock(dir, { mode: 'web' });
  const second = await acquireInstanceLock(dir, { mode: 'web' });
  await second.release();
  assert.ok(existsSync(first.file));
  await first.release();
  assert.equal(existsSync(first.file), false);
});

test('a crashed instance whose pid now belongs to another live process (a reused pid) is stale: its lock is taken over', async () => {
  const dir = folder();
  // A live process that is not the lock's owner: the pid matches, the identity (start time) does not.
  const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => other.once('spawn', resolve));
    const ownerIdentity = processIdentity(other.pid!);
    if (process.platform === 'linux') assert.ok(ownerIdentity, 'Linux gives every process an identity');
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: other.pid, host: hostname(), startedAt: '2026-11-30T10:00:00Z', mode: 'electron', identity: 'linux:an-earlier-boot:12345' }));
    const lock = await acquireInstanceLock(dir, { mode: 'web' });
    const taken = JSON.parse(readFileSync(lock.file, 'utf8')) as { pid: number; identity: string | null };
    assert.equal(taken.pid, process.pid);
    assert.equal(taken.identity, processIdentity(process.pid), 'the new lock holds its owner\'s identity');
    await lock.release();

    // The same pid with its own identity is the live owner: refused, and the message says how to recover.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: other.pid, host: hostname(), startedAt: 'x', mode: 'electron', identity: ownerIdentity }));
    await assert.rejects(acquireInstanceLock(dir, { mode: 'web' }), (error: Error) => {
      assert.match(error.message, new RegExp(`process ${other.pid}`));
      assert.match(error.message, /If no Parakeet is running \(it crashed\), delete .*instance\.lock/);
      return true;
    });
  } finally {
    other.kill();
  }
});
