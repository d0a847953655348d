// A meeting whose disk fills up (a file-size limit on its process makes every write past 100 KiB fail
// with EFBIG, as ENOSPC would): the user is told at once — a notice while it records, and the track's
// source says its audio could not be saved — and what the entry claims is what was kept: the summary's
// and the History entry's length are the WAV's, no segment ends after its audio.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { EventMap, MeetingSummary, Notice } from '../../../app/ipc/contract.js';
import { decodeWav } from '../../../app/shared/wav.js';
import { scratch } from './tmp.js';

const child = fileURLToPath(new URL('./meeting-full-disk-child.ts', import.meta.url));
const LIMIT_KIB = 100;
const SECONDS = 7;

test('a meeting on a full disk: told at once where the meeting is shown and in the header; its length is the audio kept', { skip: process.platform === 'win32' && 'needs ulimit -f' }, () => {
  const dir = scratch('meeting-full-disk');
  const run = spawnSync('bash', ['-c', `ulimit -f ${LIMIT_KIB} && exec "$0" --import tsx "$1" "$2" "$3"`, process.execPath, child, dir, String(SECONDS)], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, `child failed: ${run.stderr}`);
  const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
    notices: { pushedSec: number; notice: Notice }[];
    states: { pushedSec: number; state: EventMap['meeting:state'] }[];
    summary: MeetingSummary;
  };
  const entryDir = readdirSync(dir).find((name) => !name.endsWith('.jsonl'))!;
  const wav = decodeWav(readFileSync(join(dir, entryDir, 'you.wav')));
  const keptSec = wav.samples.length / wav.sampleRate;
  assert.ok(keptSec > 2 && keptSec < 3.5, `the limit keeps ${keptSec} s of audio`);

  const audioNotice = out.notices.find((n) => /audio/i.test(n.notice.message) && /could not be saved/i.test(n.notice.message));
  assert.ok(audioNotice, `a notice names the audio that could not be saved: ${JSON.stringify(out.notices)}`);
  assert.ok(audioNotice.pushedSec < keptSec + 1.5, `told at once (after ${audioNotice.pushedSec} s pushed, ${keptSec} s kept)`);
  assert.match(audioNotice.notice.message, /EFBIG|too large|space/i, 'the notice says why');
  assert.ok(audioNotice.notice.action, 'and what to do');
  const shown = out.states.find((s) => s.state.state === 'recording' && s.state.sources.some((src) => src.track === 'you' && src.state === 'stopped'));
  assert.ok(shown, 'the Meeting view shows the track stopped while the meeting records');
  assert.match(shown.state.sources.find((s) => s.track === 'you')!.reason ?? '', /could not be saved/);

  const records = readFileSync(join(dir, `${entryDir}.jsonl`), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; durationSec?: number; end?: number; offsetSec?: number });
  // Meeting time: the track's sample 0 sits at its offset.
  const offsetSec = records.find((r) => r.type === 'track')!.offsetSec!;
  const audioEnd = offsetSec + keptSec;
  assert.ok(Math.abs(out.summary.durationSec - audioEnd) < 0.001, `the summary claims ${out.summary.durationSec} s, the audio ends at ${audioEnd} s`);
  const closed = records.find((r) => r.type === 'closed');
  assert.ok(closed, 'the entry is closed (its last line fits under the limit)');
  assert.ok(Math.abs(closed.durationSec! - audioEnd) < 0.001, `the entry claims ${closed.durationSec} s, the audio ends at ${audioEnd} s`);
  const segments = records.filter((r) => r.type === 'segment');
  assert.ok(segments.length > 0, 'the transcript kept its finals');
  for (const s of segments) assert.ok(s.end! <= audioEnd + 1e-6, `a segment ends at ${s.end} s, after the audio (${audioEnd} s)`);
});
