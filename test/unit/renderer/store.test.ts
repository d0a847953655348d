// Store reducers and the module-level actions that IPC events go through.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { DownloadSnapshot, EngineStatus, SessionSummary, TranscriptEvent } from '../../../app/ipc/contract.js';
import * as actions from '../../../renderer/store/actions.js';
import { applyDownloadProgress, applyDownloadState, initialModels, visibleDownloads } from '../../../renderer/store/models.js';
import { addNotice, initialNotices, MAX_NOTICES } from '../../../renderer/store/notices.js';
import { appStore } from '../../../renderer/store/store.js';
import { applySummary, applyTranscript, finalText, initialTranscript } from '../../../renderer/store/transcript.js';
import { noticeFromError } from '../../../renderer/errors.js';

function ev(kind: 'partial' | 'final', segmentId: number, text: string, sessionId = 's1'): TranscriptEvent {
  return { sessionId, segmentId, kind, text, words: [], start: segmentId, end: segmentId + 1, devicesRan: ['CPU'] };
}

describe('transcript reducer', () => {
  test('a partial shows until its final arrives; finals never change', () => {
    let s = applyTranscript(initialTranscript, ev('partial', 0, 'hel'));
    assert.equal(s.partial?.text, 'hel');
    s = applyTranscript(s, ev('final', 0, 'hello'));
    assert.equal(s.partial, null);
    assert.deepEqual(s.finals.map((f) => f.text), ['hello']);
    // A second final or a late partial for the same segment is ignored.
    s = applyTranscript(s, ev('final', 0, 'HELLO'));
    s = applyTranscript(s, ev('partial', 0, 'hell'));
    assert.deepEqual(s.finals.map((f) => f.text), ['hello']);
    assert.equal(s.partial, null);
  });

  test('finals are ordered by segment even when they arrive out of order', () => {
    let s = applyTranscript(initialTranscript, ev('final', 1, 'two'));
    s = applyTranscript(s, ev('final', 0, 'one'));
    s = applyTranscript(s, ev('final', 0, 'again', 's2'));
    assert.equal(finalText(s), 'one two again');
  });

  test('a late final of an older segment keeps the newer partial', () => {
    let s = applyTranscript(initialTranscript, ev('partial', 2, 'three'));
    s = applyTranscript(s, ev('final', 1, 'two'));
    assert.equal(s.partial?.segmentId, 2);
  });

  test('the stop summary fills finals that were missed and clears the partial', () => {
    let s = applyTranscript(initialTranscript, ev('final', 0, 'one'));
    s = applyTranscript(s, ev('partial', 1, 'tw'));
    const summary: SessionSummary = {
      sessionId: 's1',
      text: 'one two',
      segments: [ev('final', 0, 'one'), ev('final', 1, 'two')],
      audioSeconds: 2,
      latency: { sessionId: 's1', micStartMs: 1, firstPartialMs: 2, finalMs: 3, meanFinalMs: 3, framesReceived: 1, samplesReceived: 1, sampleGaps: 0, nonFiniteSamples: 0 },
    };
    s = applySummary(s, summary);
    assert.equal(finalText(s), 'one two');
    assert.equal(s.partial, null);
  });
});

describe('models reducer', () => {
  const snap = (state: DownloadSnapshot['state'], received = 0): DownloadSnapshot => ({
    id: 'm-q8_0', file: 'm-q8_0.gguf', state, receivedBytes: received, totalBytes: 100, hashSource: 'server', error: null,
  });

  test('progress updates bytes and keeps speed until the state leaves downloading', () => {
    let s = applyDownloadState(initialModels, snap('downloading'));
    s = applyDownloadProgress(s, { id: 'm-q8_0', receivedBytes: 40, totalBytes: 100, bytesPerSecond: 10, etaSeconds: 6 });
    assert.equal(s.downloads['m-q8_0'].receivedBytes, 40);
    assert.equal(s.progress['m-q8_0'].etaSeconds, 6);
    s = applyDownloadState(s, snap('verifying', 100));
    assert.equal(s.progress['m-q8_0'], undefined);
    assert.equal(visibleDownloads(s.downloads, s.catalog).length, 1);
    s = applyDownloadState(s, snap('installed', 100));
    assert.equal(visibleDownloads(s.downloads, s.catalog).length, 0);
  });
});

describe('notices', () => {
  test('same key replaces, and the list is bounded', () => {
    let s = addNotice(initialNotices, { level: 'warning', code: 'ENGINE_CRASHED', message: 'a' }, 'engine');
    s = addNotice(s, { level: 'info', code: 'ENGINE_RECOVERED', message: 'b' }, 'engine');
    assert.deepEqual(s.items.map((n) => n.message), ['b']);
    for (let i = 0; i < 10; i++) s = addNotice(s, { level: 'info', code: `C${i}`, message: String(i) });
    assert.equal(s.items.length, MAX_NOTICES);
  });

  test('errors get the next step by code', () => {
    const n = noticeFromError({ code: 'NO_MODEL', message: 'no model loaded' }, 'error', 'Dictation');
    assert.equal(n.message, 'Dictation: no model loaded');
    assert.match(n.action ?? '', /Models view/);
  });
});

describe('actions', () => {
  beforeEach(() => actions.resetStore());

  const status = (state: EngineStatus['state']): EngineStatus => ({ state, mode: 'process', model: null, modelId: null, restarts: 0, lastError: null });

  test('engine crash: the status moves no banner; the crash and restart notices from main share one banner', () => {
    actions.engineStatusChanged(status('ready'));
    actions.engineStatusChanged(status('crashed'));
    actions.engineStatusChanged(status('restarting'));
    assert.equal(appStore.getState().notices.items.length, 0, 'main tells of the crash, not the status');
    actions.notify({ level: 'warning', code: 'ENGINE_CRASHED', message: 'The engine process stopped (killed by SIGKILL). It is being restarted.' });
    actions.engineStatusChanged(status('ready'));
    actions.notify({ level: 'info', code: 'ENGINE_RESTARTED', message: 'The engine was restarted and continues on CPU.' });
    const items = appStore.getState().notices.items;
    assert.equal(items.length, 1);
    assert.equal(items[0].code, 'ENGINE_RESTARTED');
    actions.engineStatusChanged(status('missing'));
    assert.equal(appStore.getState().notices.items.at(-1)?.code, 'ENGINE_MISSING', 'a missing engine is the one the renderer words');
  });

  test('transcript events reach the store; session state of other sessions is ignored', () => {
    actions.sessionBegan('s7');
    actions.transcriptReceived(ev('partial', 0, 'he', 's7'));
    assert.equal(appStore.getState().transcript.partial?.text, 'he');
    actions.sessionStateChanged({ sessionId: 's6', state: 'failed', level: 0, notice: null });
    assert.equal(appStore.getState().session.serverState, 'listening');
    actions.sessionStateChanged({ sessionId: 's7', state: 'speech', level: 0.3, notice: null });
    assert.equal(appStore.getState().session.serverState, 'speech');
  });

  test('disconnect shows a banner; reconnect removes it', () => {
    actions.connectionChanged('disconnected');
    assert.equal(appStore.getState().notices.items[0]?.code, 'DISCONNECTED');
    actions.connectionChanged('connected');
    assert.equal(appStore.getState().notices.items.length, 0);
  });
});
