// The Linux system-audio capture with stand-in tools on PATH (small shell scripts, not the sound server):
// (PATH holds only them). Float32 samples split at any byte arrive whole and in order; parec missing falls back to pw-record; both
// missing, or a sound server that does not answer, are named with what to do; stop() ends the child.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { linuxSystemAudio, SYSTEM_AUDIO_MISSING, type SourceProblem } from '../../../app/main/meeting/system-audio.js';
import { scratch } from './tmp.js';

function tool(dir: string, name: string, script: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, name), 0o755);
}

function run(bin: string, stopAfterMs?: number): Promise<{ samples: number[]; problem: SourceProblem | null; description: string; args: string }> {
  return new Promise((resolve) => {
    const samples: number[] = [];
    const capture = linuxSystemAudio({ PATH: bin })(16000, {
      onFrame: (frame) => samples.push(...frame),
      onEnd: (problem) => resolve({ samples, problem, description: capture.description, args: '' }),
    });
    if (stopAfterMs !== undefined) setTimeout(() => void capture.stop(), stopAfterMs);
  });
}

test('samples split across chunks at odd byte offsets arrive whole, in order', async () => {
  const bin = join(scratch('sysaudio-split'), 'bin');
  // 0.5, -0.25, 1.0 as float32 LE, written in pieces of 3, 5 and 4 bytes, then the tool exits.
  tool(bin, 'parec', String.raw`printf '\000\000\000'; /bin/sleep 0.05; printf '\077\000\000\200\276'; /bin/sleep 0.05; printf '\000\000\200\077'; exit 0`);
  const { samples, description } = await run(bin);
  assert.deepEqual(samples, [0.5, -0.25, 1]);
  assert.equal(description, 'parec @DEFAULT_MONITOR@');
});

test('without parec, pw-record records; without either, the reason names both packages', async () => {
  const dir = scratch('sysaudio-missing');
  const pwOnly = join(dir, 'pw');
  tool(pwOnly, 'pw-record', String.raw`printf '\000\000\000\077'; exit 0`);
  const fallback = await run(pwOnly);
  assert.deepEqual(fallback.samples, [0.5]);
  assert.equal(fallback.description, 'pw-record (default sink monitor)');
  const none = await run(join(dir, 'empty'));
  assert.deepEqual(none.problem, SYSTEM_AUDIO_MISSING);
  assert.match(none.problem!.action, /pulseaudio-utils/);
});

test('a sound server that does not answer is named with what to do; stop() ends a running capture without a problem', async () => {
  const dir = scratch('sysaudio-refused');
  const refused = join(dir, 'refused');
  tool(refused, 'parec', 'echo "Connection failure: Connection refused" >&2; exit 1');
  const { problem } = await run(refused);
  // In words; the tool's own line is for the log (issue 44 item 5).
  assert.equal(problem!.reason, 'The system audio cannot be recorded: no PulseAudio or PipeWire sound server answered.');
  assert.equal(problem!.detail, 'parec: Connection failure: Connection refused');
  assert.match(problem!.action, /pipewire-pulse|pulseaudio --start/);
  const forever = join(dir, 'forever');
  tool(forever, 'parec', 'exec /bin/sleep 30');
  const stopped = await run(forever, 200);
  assert.equal(stopped.problem, null);
});
