// The Files view's state and commands: the files slice (progress of this
// window's job only, bounded newest-first results, cancel before the job id
// is known), transcribeFile/cancelFileJob against a fake window.parakeet, and
// the pure helpers the view shows (times, speed, export names and contents).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FileTranscript } from '../../../app/ipc/contract.js';
import { exportContent, exportFileName } from '../../../renderer/export.js';
import { fileName, formatDuration, formatRealTime, formatSpeechCut, formatTimestamp } from '../../../renderer/format.js';
import * as actions from '../../../renderer/store/actions.js';
import { cancelFileJob, sendPendingFileCancel, transcribeFile, unqueueFile } from '../../../renderer/store/commands.js';
import {
  applyFileProgress, fileCancelRequested, fileCancelSent, fileJobEnded, fileJobFinished, fileJobStarted, fileUploadDone,
  fileUploadProgress, fileUploadStarted, initialFiles, MAX_FILE_RESULTS, pendingCancel, showFileResult, shownResult,
} from '../../../renderer/store/files.js';
import { appStore } from '../../../renderer/store/store.js';
import { installFakeApi } from './fake-api.js';
import { progressFigures } from '../../../renderer/views/files/progress-figures.js';

function transcript(jobId: string, path = '/rec/meeting.wav'): FileTranscript {
  return {
    jobId,
    path,
    text: 'hello world',
    words: [
      { text: 'hello', start: 0.5, end: 0.9, confidence: 0.9 },
      { text: 'world', start: 1.0, end: 1.4, confidence: 0.3 },
    ],
    tokens: [{ id: 1, piece: '▁hello', frame: 6, duration: 5, start: 0.5, end: 0.9, confidence: 0.9 }],
    durationSec: 82,
    devicesRan: ['CPU'],
    elapsedMs: 2000,
  };
}

describe('files reducers', () => {
  test('progress moves only this window\'s job: by path until main names it, then by job id; never backwards', () => {
    let s = fileJobStarted(initialFiles, '/rec/a.wav');
    assert.equal(s.job.phase, 'running');
    s = applyFileProgress(s, { jobId: 'f9', fraction: 0.5, path: '/rec/other.wav' });
    assert.equal(s.job.jobId, null, 'another client\'s job is ignored');
    s = applyFileProgress(s, { jobId: 'f3', fraction: 0, path: '/rec/a.wav' });
    assert.equal(s.job.jobId, 'f3');
    s = applyFileProgress(s, { jobId: 'f3', fraction: 0.4 });
    s = applyFileProgress(s, { jobId: 'f4', fraction: 0.9, path: '/rec/a.wav' });
    s = applyFileProgress(s, { jobId: 'f3', fraction: 0.2 });
    assert.deepEqual([s.job.jobId, s.job.fraction], ['f3', 0.4]);
    const same = applyFileProgress(s, { jobId: 'f3', fraction: 0.4 });
    assert.equal(same, s, 'no change, same object (no re-render)');
  });

  test('results: newest first, bounded, tokens dropped; a late progress event leaves a finished job alone', () => {
    let s = initialFiles;
    for (let i = 1; i <= MAX_FILE_RESULTS + 2; i++) {
      s = fileJobStarted(s, `/rec/${i}.wav`);
      s = fileJobFinished(s, transcript(`f${i}`, `/rec/${i}.wav`), i);
    }
    assert.equal(s.results.length, MAX_FILE_RESULTS);
    assert.deepEqual(s.results.map((r) => r.transcript.jobId), ['f7', 'f6', 'f5', 'f4', 'f3']);
    assert.equal(shownResult(s)?.transcript.jobId, 'f7');
    assert.equal('tokens' in s.results[0].transcript, false);
    assert.deepEqual([s.job.phase, s.job.fraction], ['done', 1]);
    assert.equal(applyFileProgress(s, { jobId: 'f7', fraction: 0.5 }), s);
    s = showFileResult(s, s.results[2].key);
    assert.equal(shownResult(s)?.transcript.jobId, 'f5');
    assert.equal(showFileResult(s, 999), s, 'an unknown key changes nothing');
  });

  test('cancel before the job id is known waits for it, and is sent once', () => {
    let s = fileJobStarted(initialFiles, '/rec/a.wav');
    s = fileCancelRequested(s);
    assert.equal(pendingCancel(s.job), null, 'no id yet');
    s = applyFileProgress(s, { jobId: 'f1', fraction: 0, path: '/rec/a.wav' });
    assert.equal(pendingCancel(s.job), 'f1');
    s = fileCancelSent(s);
    assert.equal(pendingCancel(s.job), null);
    assert.equal(fileCancelRequested(s), s, 'a second press does nothing');
    s = fileJobEnded(s, { cancelled: true });
    assert.equal(s.job.phase, 'cancelled');
    assert.equal(fileJobEnded(s, { cancelled: false, error: 'late' }), s, 'an ended job stays ended');
  });
});

describe('file commands', () => {
  const fake = installFakeApi();

  test('transcribe: the decoder is sent, the result is kept and shown; a file added meanwhile waits its turn (issue 44 item 11)', async () => {
    const done = transcribeFile('/rec/meeting.wav', 'ctc');
    const call = fake.take('files:transcribe');
    assert.deepEqual(call.payload, { path: '/rec/meeting.wav', options: { decoder: 'ctc' } });
    assert.equal(await transcribeFile('/rec/other.wav'), null, 'queued, not run beside it');
    assert.equal(await transcribeFile('/rec/third.wav'), null);
    assert.deepEqual(appStore.getState().files.queue.map((q) => q.name), ['other.wav', 'third.wav']);
    unqueueFile(appStore.getState().files.queue[1]!.key);
    assert.deepEqual(appStore.getState().files.queue.map((q) => q.name), ['other.wav']);
    call.resolve({ ok: true, value: transcript('f1') });
    assert.equal((await done)?.jobId, 'f1');
    let files = appStore.getState().files;
    assert.equal(shownResult(files)?.transcript.text, 'hello world');
    // The queued one starts as the first ends.
    assert.deepEqual(files.queue, []);
    assert.deepEqual([files.job.phase, files.job.path], ['running', '/rec/other.wav']);
    fake.take('files:transcribe').resolve({ ok: true, value: transcript('f2', '/rec/other.wav') });
    await new Promise((resolve) => setImmediate(resolve));
    files = appStore.getState().files;
    assert.equal(files.job.phase, 'done');
    assert.equal(shownResult(files)?.name, 'other.wav');
  });

  test('a missing file: phase failed, the error once at the job with file advice, no banner', async () => {
    const done = transcribeFile('/rec/missing.wav');
    fake.take('files:transcribe').resolve({ ok: false, error: { code: 'NOT_FOUND', message: 'There is no file at /rec/missing.wav.' } });
    assert.equal(await done, null);
    const state = appStore.getState();
    assert.equal(state.files.job.phase, 'failed');
    assert.equal(state.notices.items.length, 0, 'not also a banner: the error is shown once');
    assert.match(state.files.job.error ?? '', /^There is no file at \/rec\/missing\.wav\. Check the path: .*full path of an audio file/);
    // The next job clears it: it was about another file.
    void transcribeFile('/rec/present.wav');
    assert.equal(appStore.getState().files.job.error, null);
  });

  test('cancel pressed before the first progress event is sent, once, when the job id arrives', async () => {
    const done = transcribeFile('/rec/long.wav');
    const call = fake.take('files:transcribe');
    await cancelFileJob();
    assert.equal(fake.calls.length, 0, 'nothing to cancel yet: main has not named the job');
    assert.equal(appStore.getState().files.job.cancel, 'requested');
    // What bridge.ts does with each files:progress event.
    actions.fileProgressed({ jobId: 'f2', fraction: 0, path: '/rec/long.wav' });
    void sendPendingFileCancel();
    const cancel = fake.take('files:cancel');
    assert.deepEqual(cancel.payload, { jobId: 'f2' });
    cancel.resolve({ ok: true, value: undefined });
    actions.fileProgressed({ jobId: 'f2', fraction: 0.1 });
    void sendPendingFileCancel();
    assert.equal(fake.calls.length, 0, 'sent once');
    call.resolve({ ok: false, error: { code: 'ABORTED', message: 'cancelled' } });
    assert.equal(await done, null);
    assert.equal(appStore.getState().files.job.phase, 'cancelled');
  });

  test('an ABORTED reply after a requested cancel is "cancelled" without a banner; without one it is an error', async () => {
    const first = transcribeFile('/rec/long.wav');
    const call = fake.take('files:transcribe');
    actions.fileProgressed({ jobId: 'f5', fraction: 0.1, path: '/rec/long.wav' });
    const cancelling = cancelFileJob();
    fake.take('files:cancel').resolve({ ok: false, error: { code: 'NOT_FOUND', message: 'There is no running file job f5.' } });
    await cancelling;
    call.resolve({ ok: false, error: { code: 'ABORTED', message: 'cancelled' } });
    assert.equal(await first, null);
    let state = appStore.getState();
    assert.equal(state.files.job.phase, 'cancelled');
    assert.equal(state.notices.items.length, 0, 'neither the cancel race (NOT_FOUND) nor the abort is an error');

    const second = transcribeFile('/rec/long.wav');
    fake.take('files:transcribe').resolve({ ok: false, error: { code: 'ABORTED', message: 'cancelled' } });
    await second;
    state = appStore.getState();
    assert.equal(state.files.job.phase, 'failed');
    assert.equal(state.files.job.error, 'cancelled');
    assert.equal(state.notices.items.length, 0);
  });
});

describe('what the view shows', () => {
  test('timestamps mm:ss.cc (h:mm:ss.cc past the hour), durations, real-time factor, file names', () => {
    assert.equal(formatTimestamp(0), '00:00.00');
    assert.equal(formatTimestamp(83.456), '01:23.46');
    assert.equal(formatTimestamp(3723.5), '1:02:03.50');
    assert.equal(formatDuration(12.62), '12.6 s');
    assert.equal(formatDuration(245), '4 min 05 s');
    assert.equal(formatDuration(3725), '1 h 02 min');
    assert.equal(formatRealTime(82, 2000), '41× real time');
    assert.equal(formatRealTime(10, 2000), '5.0× real time');
    assert.equal(formatRealTime(10, 0), '—');
    assert.equal(fileName('/home/me/Recordings/meeting.wav'), 'meeting.wav');
    assert.equal(fileName('C:\\Users\\me\\talk.wav'), 'talk.wav');
  });

  test('exports: named after the audio; SRT from the words; JSON with the facts the view shows', () => {
    const { tokens: _tokens, ...t } = transcript('f1', '/rec/team meeting.v2.wav');
    assert.equal(exportFileName(t.path, 'srt'), 'team meeting.v2.srt');
    assert.equal(exportFileName('/rec/.wav', 'txt'), 'transcript.txt');
    assert.equal(exportContent('txt', t), 'hello world\n');
    assert.equal(exportContent('srt', t), '1\n00:00:00,500 --> 00:00:01,400\nhello world\n');
    assert.ok(exportContent('vtt', t).startsWith('WEBVTT\n\n00:00:00.500 --> 00:00:01.400\nhello world\n'));
    const json = JSON.parse(exportContent('json', t)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), ['title', 'file', 'model', 'decoder', 'durationSec', 'elapsedMs', 'devicesRan', 'text', 'words']);
    assert.equal(json.title, 'team meeting.v2.wav');
    assert.equal(json.file, '/rec/team meeting.v2.wav');
    assert.deepEqual(json.words, t.words);
    // An upload: its own name, no server path; float noise rounded to the millisecond (issue 44 item 11).
    const noisy = { ...t, durationSec: 2.8000000000000003, words: [{ ...t.words[0]!, start: 0.1 + 0.2 }] };
    const raw = exportContent('json', noisy, { name: 'talk.m4a', path: null });
    assert.doesNotMatch(raw, /0000000000/);
    const uploaded = JSON.parse(raw) as { title: string; file?: string; durationSec: number; words: { start: number }[] };
    assert.deepEqual([uploaded.title, uploaded.file, uploaded.durationSec, uploaded.words[0]!.start], ['talk.m4a', undefined, 2.8, 0.3]);
    // How its speech was found travels with it, after where it ran.
    const cut = JSON.parse(exportContent('json', { ...t, speechCut: { detector: 'silero', model: 'Silero VAD v6.2 (F32)', decodedSec: 1.2 } })) as Record<string, unknown>;
    assert.deepEqual(Object.keys(cut).slice(6, 8), ['devicesRan', 'speechCut']);
    assert.deepEqual(cut.speechCut, { detector: 'silero', model: 'Silero VAD v6.2 (F32)', decodedSec: 1.2 });
  });

  test('"Speech found by": the VAD, what it decoded and skipped; or the energy planner over the whole file', () => {
    assert.equal(formatSpeechCut({ detector: 'silero', model: 'Silero VAD v6.2 (F32)', decodedSec: 41.2 }, 60),
      'Silero VAD v6.2 (F32): 41.2 s decoded, 18.8 s of silence skipped');
    assert.equal(formatSpeechCut({ detector: 'silero', model: 'Silero VAD v5 (F16)', decodedSec: 0 }, 60), 'Silero VAD v5 (F16): no speech found, nothing decoded');
    assert.equal(formatSpeechCut({ detector: 'silero', model: 'Silero VAD v6.2 (F32)', decodedSec: 12 }, 12.02), 'Silero VAD v6.2 (F32): the whole file decoded');
    assert.equal(formatSpeechCut({ detector: 'energy', decodedSec: 60 }, 60), 'Energy (no VAD model in use): the whole file decoded');
    assert.equal(formatSpeechCut({ detector: 'silero', model: 'Silero VAD v6.2 (F32)', decodedSec: 300 }, 3600),
      'Silero VAD v6.2 (F32): 5 min 00 s decoded, 55 min 00 s of silence skipped');
  });
});

describe('file progress figures (issue 11)', () => {
  test('position in the audio, time so far and time left; the start time is the store\'s, so a view switch keeps it', () => {
    let files = fileJobStarted(initialFiles, '/rec/meeting.wav', 1_000);
    assert.equal(files.job.startedAt, 1_000);
    files = applyFileProgress(files, { jobId: 'f1', fraction: 0, path: '/rec/meeting.wav', audioSec: 0, durationSec: 300 });
    assert.equal(progressFigures(files.job, 0), '0 % · 0:00 of 5:00 of audio · 0 ms so far · estimating time left…');
    files = applyFileProgress(files, { jobId: 'f1', fraction: 0.25, audioSec: 75, durationSec: 300 });
    assert.equal(progressFigures(files.job, 4_000), '25 % · 1:15 of 5:00 of audio · 4.00 s so far · about 12 s left');
  });
});

test('an upload (web mode): the job runs while bytes go, never moves back, then takes the server path the progress events name', () => {
  let s = fileUploadStarted(initialFiles, 'meeting notes.wav', 1000, 5);
  assert.deepEqual([s.job.phase, s.job.path, s.job.upload], ['running', 'meeting notes.wav', { name: 'meeting notes.wav', sizeBytes: 1000, receivedBytes: 0, done: false }]);
  s = fileUploadProgress(s, 400);
  assert.equal(fileUploadProgress(s, 300), s, 'an older acknowledgement changes nothing');
  assert.equal(fileUploadProgress(s, 5000).job.upload!.receivedBytes, 1000, 'never past the size');
  // A job's progress for some other path is not ours; after the upload, the server's path is.
  const serverPath = '/data/uploads/u1/meeting notes.wav';
  assert.equal(applyFileProgress(s, { jobId: 'f1', fraction: 0, path: serverPath }), s);
  s = fileUploadDone(s, serverPath);
  assert.deepEqual([s.job.path, s.job.upload!.done, s.job.upload!.receivedBytes], [serverPath, true, 1000]);
  s = applyFileProgress(s, { jobId: 'f1', fraction: 0.5, path: serverPath });
  assert.deepEqual([s.job.jobId, s.job.fraction], ['f1', 0.5]);
  // A new path job has no upload.
  assert.equal(fileJobStarted(initialFiles, '/a.wav').job.upload, null);
});
