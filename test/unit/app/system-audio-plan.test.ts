// Which capture records the meeting's "Others" track per OS (shared/system-audio-plan.ts): Linux in main,
// Windows through WASAPI loopback, macOS 13+ through ScreenCaptureKit (the CoreAudio tap from macOS 14.2 on
// Electron ≥ 39), web mode elsewhere and old macOS unavailable with the reason; capture errors in words
// (macOS's screen-recording permission named with where to allow it); main's display-media answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeLoopbackError, displayMediaAnswer, macosVersion, screenAccessProblem, systemAudioPlan } from '../../../app/shared/system-audio-plan.js';

test('the plan per OS, Electron or web mode', () => {
  assert.deepEqual(systemAudioPlan({ platform: 'linux', osRelease: '6.8.0', electron: '40.8.5' }), { kind: 'main', how: 'parec/pw-record' });
  assert.deepEqual(systemAudioPlan({ platform: 'linux', osRelease: '6.8.0', electron: undefined }).kind, 'main', 'web mode on Linux: the server records');
  const win = systemAudioPlan({ platform: 'win32', osRelease: '10.0.22631', electron: '40.8.5' });
  assert.equal(win.kind === 'client-loopback' && win.how, 'wasapi');
  const sonoma = systemAudioPlan({ platform: 'darwin', osRelease: '23.4.0', electron: '40.8.5' });
  assert.equal(sonoma.kind === 'client-loopback' && sonoma.how, 'coreaudio-tap');
  assert.match(sonoma.kind === 'client-loopback' ? sonoma.needs : '', /NSAudioCaptureUsageDescription/);
  // The tap records the audio, but the screen track getDisplayMedia requires still needs Screen Recording.
  assert.match(sonoma.kind === 'client-loopback' ? sonoma.needs : '', /"Screen & System Audio Recording" permission for the screen track/);
  const ventura = systemAudioPlan({ platform: 'darwin', osRelease: '22.6.0', electron: '40.8.5' });
  assert.equal(ventura.kind === 'client-loopback' && ventura.how, 'screencapturekit');
  assert.equal((systemAudioPlan({ platform: 'darwin', osRelease: '23.4.0', electron: '38.2.0' }) as { how?: string }).how, 'screencapturekit', 'older Electron: ScreenCaptureKit');
  const monterey = systemAudioPlan({ platform: 'darwin', osRelease: '21.6.0', electron: '40.8.5' });
  assert.equal(monterey.kind, 'unavailable');
  assert.match(monterey.kind === 'unavailable' ? monterey.problem.reason : '', /needs macOS 13 or later \(this is macOS 12\)/);
  const webWin = systemAudioPlan({ platform: 'win32', osRelease: '10.0', electron: undefined });
  assert.match(webWin.kind === 'unavailable' ? `${webWin.problem.reason} ${webWin.problem.action}` : '', /web mode.*Linux.*desktop app/);
  assert.equal(systemAudioPlan({ platform: 'freebsd', osRelease: '14', electron: '40.0.0' }).kind, 'unavailable');
});

test('macOS versions from Darwin releases', () => {
  assert.deepEqual(macosVersion('22.6.0'), { major: 13, minor: 6 });
  assert.deepEqual(macosVersion('23.2.0'), { major: 14, minor: 2 });
  assert.equal(macosVersion('nonsense'), null);
});

test('capture errors say what happened and what to do', () => {
  const denied = describeLoopbackError('darwin', { name: 'NotAllowedError', message: 'Permission denied by system' });
  assert.match(denied.reason, /macOS did not allow Parakeet to record the system audio \(Permission denied by system\)/);
  assert.match(denied.action, /Privacy & Security › Screen & System Audio Recording/);
  assert.match(describeLoopbackError('win32', { name: 'NotAllowedError' }).reason, /refused/);
  assert.match(describeLoopbackError('win32', { name: 'NoAudioTrack' }).action, /Settings › System › Sound/);
  assert.match(describeLoopbackError('darwin', { name: 'NotReadableError' }).reason, /could not be read/);
  assert.match(describeLoopbackError('darwin', null).reason, /unknown error/);
  assert.match(screenAccessProblem('denied')!.action, /Screen & System Audio Recording/);
  assert.equal(screenAccessProblem('granted'), null);
  assert.equal(screenAccessProblem('not-determined'), null, 'not asked yet: the capture asks');
});

test('main answers a display-media request with loopback only for our page asking for audio under a loopback plan', () => {
  const plan = systemAudioPlan({ platform: 'win32', osRelease: '10.0', electron: '40.8.5' });
  assert.equal(displayMediaAnswer(plan, { trusted: true, audioRequested: true }, 1), 'loopback');
  assert.equal(displayMediaAnswer(plan, { trusted: false, audioRequested: true }, 1), 'refuse');
  assert.equal(displayMediaAnswer(plan, { trusted: true, audioRequested: false }, 1), 'refuse');
  assert.equal(displayMediaAnswer(plan, { trusted: true, audioRequested: true }, 0), 'refuse');
  assert.equal(displayMediaAnswer(systemAudioPlan({ platform: 'linux', osRelease: '6', electron: '40.8.5' }), { trusted: true, audioRequested: true }, 1), 'refuse');
});
