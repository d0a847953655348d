// Logger: scoped lines, level filter, error formatting, size rotation.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LogSink, createLogger } from '../../../app/main/log.js';
import { scratch } from './tmp.js';

test('child loggers carry their scope; levels below the threshold are dropped; errors keep code and stack', async () => {
  const dir = scratch('log');
  const sink = new LogSink({ dir, level: 'info' });
  const log = createLogger(sink);
  const engine = log.child('engine');
  engine.child('process').info('hello', { pid: 1 });
  engine.debug('not written');
  log.error('failed', Object.assign(new Error('boom'), { code: 'ENGINE_CRASHED' }));
  await sink.flush();
  const text = readFileSync(sink.file, 'utf8');
  assert.match(text, /INFO {2}\[main\.engine\.process\] hello \{"pid":1\}/);
  assert.doesNotMatch(text, /not written/);
  assert.match(text, /ERROR \[main\] failed \[ENGINE_CRASHED\] Error: boom\n\s+at /);
  assert.equal(sink.file, join(dir, 'main.log'));
});

test('the file rotates by size and keeps a bounded number of old files', async () => {
  const dir = scratch('log');
  const sink = new LogSink({ dir, maxBytes: 2000, keep: 2 });
  const log = createLogger(sink);
  for (let i = 0; i < 200; i += 1) {
    log.info(`line ${i} ${'x'.repeat(40)}`);
    if (i % 20 === 0) await sink.flush();
  }
  await sink.close();
  assert.ok(existsSync(sink.file));
  assert.ok(existsSync(`${sink.file}.1`));
  assert.ok(existsSync(`${sink.file}.2`));
  assert.equal(existsSync(`${sink.file}.3`), false);
  for (const f of [sink.file, `${sink.file}.1`]) assert.ok(readFileSync(f).length <= 2000 + 1200, `${f} stays near the limit`);
  assert.match(readFileSync(sink.file, 'utf8'), /line 199/);
});
