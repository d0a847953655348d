// Meeting mode end to end on this machine: a PulseAudio daemon of the test's
// own with a null sink as the default output; the web server (a separate
// process, the real services, engine process and the trained digits model)
// records a meeting: espeak-ng digit strings are played into the sink
// (paplay) — the "Others" track, captured by the server through parec — while
// other strings are sent as the microphone ("You") over the bridge in real
// time. Checked: both tracks' finals are the spoken strings with their
// speaker labels and times where they were spoken; the History entry holds
// them by time with the audio of both tracks. Then a second meeting is
// SIGKILLed mid-way with the server: at the next start the meeting is
// recovered, with every final emitted before the kill and the microphone's
// audio sample for sample up to ≤ 2 s before it. A third meeting loses its
// page mid-way (the socket closes, as on a reload): it records on, the new
// page finds it, takes it over, gets the transcript so far and resumes the
// microphone; both WAVs end aligned, the gap is silence and a marker.
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import type { HistoryEntry, HistoryList, MeetingCurrent, MeetingFinal, MeetingInfo, MeetingPartial, MeetingSummary, Notice } from '../../app/ipc/contract.js';
import { errorRates } from '../../app/shared/wer.js';
import { decodeWav } from '../../app/shared/wav.js';
import { DIGITS_MODEL, concatenate, ensureDigitsSet, readWav16, type Concatenation, type DigitsSetOptions } from '../support/audio/digits.js';
import { startPulseAudio, type TestPulseAudio } from '../support/audio/pulseaudio.js';
import { BridgeClient } from './bridge-client.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { tempDir, writeTestSettings } from './helpers.js';

const RATE = 16000;
const FRAME = 640;
const missingTool = ['espeak-ng', 'sox', 'python3'].find((t) => spawnSync('which', [t]).status !== 0);
const staticSkip = !existsSync(DIGITS_MODEL) ? `the trained test model is not at ${DIGITS_MODEL}` : missingTool ? `${missingTool} is not installed` : false;

const YOU_SET: DigitsSetOptions = { seed: 0x0e71_0001, perVoice: 4, voices: ['en-us'], rates: [150, 165], minWords: 3, maxWords: 5 };
const OTHERS_SET: DigitsSetOptions = { seed: 0x0e71_0002, perVoice: 3, voices: ['en'], rates: [150, 165], minWords: 3, maxWords: 5 };

const dir = tempDir('meeting');
let pulse: TestPulseAudio | string = 'not started';

type Server = ServerProcess;

const startServer = (userDataDir: string, env: NodeJS.ProcessEnv): Promise<Server> => startServerProcess(userDataDir, DIGITS_MODEL, env);

/** A child's exit, or a failure after `ms` (a server that does not stop must not hang the suite). */
function exited(child: ChildProcess, ms = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server (pid ${child.pid}) did not exit within ${ms} ms`));
    }, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function finalsOf(client: BridgeClient): MeetingFinal[] {
  return client.events.filter((e) => e.event === 'meeting:transcript').map((e) => e.data as MeetingFinal);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Sends `audio` as the meeting's microphone in real time (40 ms frames with sample positions); `fed` counts what was sent when. */
async function feedMic(client: BridgeClient, info: MeetingInfo, audio: Float32Array, fed: { at: number; samples: number }[], stop: { now: boolean }): Promise<number> {
  const stream = Number(info.micStreamId!.slice(1));
  const t0 = performance.now();
  let position = 0;
  while (position < audio.length && !stop.now) {
    const frame = audio.slice(position, Math.min(audio.length, position + FRAME));
    client.sendAudio(stream, frame, position);
    position += frame.length;
    fed.push({ at: performance.now(), samples: position });
    const due = t0 + (position / RATE) * 1000;
    await sleep(Math.max(0, due - performance.now()));
  }
  return position;
}

/** Where the plan says each Others string starts in meeting time (s), for the player below. */
const OTHERS_AT = [1.0, 6.0, 11.0];

function midpoint(words: readonly { start: number; end: number }[]): number {
  return (words[0]!.start + words.at(-1)!.end) / 2;
}

describe('meeting mode: microphone and system audio through PulseAudio, transcribed live, recovered after SIGKILL', { skip: staticSkip, timeout: 240_000 }, () => {
  let you: Concatenation;
  let others: { wav: string; text: string }[];

  before(async () => {
    pulse = await startPulseAudio(join(dir, 'pulse'));
    const youSet = ensureDigitsSet('meeting-you', YOU_SET);
    you = concatenate(youSet.items, join(dir, 'you.wav'), { seed: 7, pauseMin: 1.5, pauseMax: 2.5, leadSec: 0.5, tailSec: 1.5 });
    others = ensureDigitsSet('meeting-others', OTHERS_SET).items.map((it) => ({ wav: it.wav, text: it.text }));
  });
  after(async () => {
    if (typeof pulse !== 'string') await pulse.stop();
  });

  test('both tracks: the spoken strings as finals, labelled You and Others, at the times they were spoken; History keeps them by time with the audio', async (t) => {
    if (typeof pulse === 'string') return t.skip(`PulseAudio cannot start here: ${pulse}`);
    const userDataDir = join(dir, 'user-a');
    mkdirSync(userDataDir);
    // The digits model learned strings with almost no silence around them: no pre-roll (as the e2e dictation).
    writeTestSettings(userDataDir, { dictation: { preRollMs: 0 } });
    const server = await startServer(userDataDir, pulse.env);
    try {
      const { client } = server;
      const started = await client.invoke<MeetingInfo>('meeting:start', { micSampleRate: RATE });
      assert.ok(started.ok, JSON.stringify(started));
      const info = started.value;
      assert.deepEqual(info.sources.map((s) => [s.track, s.speaker, s.state]), [['you', 'You', 'recording'], ['others', 'Others', 'recording']]);
      const t0 = performance.now();
      const played: { start: number; end: number; text: string }[] = [];
      const player = (async () => {
        for (let i = 0; i < others.length; i += 1) {
          await sleep(Math.max(0, t0 + OTHERS_AT[i]! * 1000 - performance.now()));
          const start = (performance.now() - t0) / 1000;
          await pulse.play(others[i]!.wav);
          played.push({ start, end: (performance.now() - t0) / 1000, text: others[i]!.text });
        }
      })();
      const marker = await client.invoke('meeting:marker', { meetingId: info.meetingId, text: 'first decision' });
      assert.ok(marker.ok);
      const sent = await feedMic(client, info, readWav16(you.wav).samples, [], { now: false });
      await player;
      await sleep(1500); // the last Others string's closing pause
      const stopped = await client.invoke<MeetingSummary>('meeting:stop', { meetingId: info.meetingId, sentSamples: sent });
      assert.ok(stopped.ok, JSON.stringify(stopped));
      const summary = stopped.value;
      const youReport = summary.tracks.find((r) => r.track === 'you')!;
      assert.equal(youReport.samples, sent, 'every microphone sample is on the track');
      assert.equal(youReport.samplesMissing + youReport.samplesRepeated, 0);

      // Partial text: each track showed what was being said before its final came.
      for (const track of ['you', 'others'] as const) {
        const firstFinal = client.events.findIndex((e) => e.event === 'meeting:transcript' && (e.data as MeetingFinal).track === track && (e.data as MeetingFinal).text);
        const partial = client.events.findIndex((e) => e.event === 'meeting:partial' && (e.data as MeetingPartial).track === track);
        assert.ok(partial >= 0 && partial < firstFinal, `${track}: a partial (event ${partial}) before the first final (event ${firstFinal})`);
      }
      t.diagnostic(`partials: ${client.events.filter((e) => e.event === 'meeting:partial').map((e) => `${(e.data as MeetingPartial).track}#${(e.data as MeetingPartial).trackSegment} "${(e.data as MeetingPartial).text}"`).join(' | ')}`);
      t.diagnostic(`final lag at real time (ms): ${summary.tracks.map((r) => `${r.track} ${JSON.stringify(r.finalLagMs)}`).join(', ')}`);
      // The three clocks of one final, in order: the end of speech comes before the segment's end sample (the
      // kept tail), which comes before the close decision (the pause): the waits read largest to smallest.
      for (const r of summary.tracks) {
        if (!r.finalLagMs) continue;
        const fromSpeech = r.speechEndToFinalMs!;
        const fromClose = r.closeToFinalMs!;
        assert.ok(fromSpeech.p50 >= r.finalLagMs.p50 && r.finalLagMs.p50 >= fromClose.p50, `${r.track}: ${JSON.stringify(r)}`);
        assert.ok(fromSpeech.p50 - fromClose.p50 >= 300, `${r.track}: the pause (600 ms − 200 ms tail at least) separates end of speech from the close decision: ${JSON.stringify(r)}`);
      }
      const finals = finalsOf(client).filter((f) => f.text);
      const byTrack = (track: string): MeetingFinal[] => finals.filter((f) => f.track === track).sort((a, b) => a.start - b.start);
      const youFinals = byTrack('you');
      const othersFinals = byTrack('others');
      assert.ok(youFinals.every((f) => f.speaker === 'You') && othersFinals.every((f) => f.speaker === 'Others'));
      // Text: the strings spoken on each track (WER over the track, the model's own errors allowed a little).
      const youWer = errorRates(you.text, youFinals.map((f) => f.text).join(' ')).wer;
      const othersWer = errorRates(others.map((o) => o.text).join(' '), othersFinals.map((f) => f.text).join(' ')).wer;
      t.diagnostic(`You (WER ${youWer.toFixed(3)}): ${youFinals.map((f) => `[${f.start.toFixed(2)}–${f.end.toFixed(2)}] ${f.text}`).join(' | ')}`);
      t.diagnostic(`Others (WER ${othersWer.toFixed(3)}): ${othersFinals.map((f) => `[${f.start.toFixed(2)}–${f.end.toFixed(2)}] ${f.text}`).join(' | ')}; played ${played.map((p) => `[${p.start.toFixed(2)}–${p.end.toFixed(2)}] ${p.text}`).join(' | ')}`);
      assert.ok(youWer <= 0.1, `You: "${youFinals.map((f) => f.text).join(' | ')}" vs "${you.text}" (WER ${youWer})`);
      assert.ok(othersWer <= 0.1, `Others: "${othersFinals.map((f) => f.text).join(' | ')}" vs "${others.map((o) => o.text).join(' ')}" (WER ${othersWer})`);
      // Times: each final's words sit where that string was spoken (mic: its place in the fed audio, plus
      // the track's offset; others: while paplay played it).
      for (const part of you.parts) {
        const final = youFinals.find((f) => f.text === part.text);
        if (!final) continue;
        const expected = (part.start + part.end) / 2;
        assert.ok(Math.abs(midpoint(final.words) - expected) < 0.6, `You "${part.text}": words at ${midpoint(final.words).toFixed(2)} s, spoken at ${expected.toFixed(2)} s`);
      }
      for (const p of played) {
        const final = othersFinals.find((f) => f.text === p.text);
        if (!final) continue;
        const mid = midpoint(final.words);
        assert.ok(mid > p.start - 0.3 && mid < p.end + 0.3, `Others "${p.text}": words at ${mid.toFixed(2)} s, played ${p.start.toFixed(2)}–${p.end.toFixed(2)} s`);
      }
      // History: one meeting entry, finals of both tracks interleaved by time with their labels, the marker, both WAVs.
      const list = await client.invoke<HistoryList>('history:list', { kind: 'meeting' });
      assert.ok(list.ok && list.value.entries.length === 1);
      const entry = (await client.invoke<HistoryEntry>('history:get', { id: info.entryId }));
      assert.ok(entry.ok);
      const segs = entry.value.segments.filter((s) => s.text);
      assert.deepEqual(segs.map((s) => [s.speaker, s.text]), [...finals].sort((a, b) => a.start - b.start).map((f) => [f.speaker, f.text]));
      assert.ok(segs.some((s, i) => i > 0 && s.speaker !== segs[i - 1]!.speaker), 'the tracks interleave');
      assert.deepEqual(entry.value.markers?.map((m) => m.text), ['first decision']);
      const audioDir = join(userDataDir, 'history', 'audio', info.entryId);
      const youWav = decodeWav(readFileSync(join(audioDir, 'you.wav')));
      assert.equal(youWav.samples.length, sent);
      const othersWav = decodeWav(readFileSync(join(audioDir, 'others.wav')));
      assert.ok(othersWav.samples.length / RATE > played.at(-1)!.end - 1, `others.wav holds ${othersWav.samples.length / RATE} s`);
      // Transcribed again from its WAVs at the live cut points (CTC): the same text, speakers and times.
      const again = await client.invoke<HistoryEntry>('meeting:retranscribe', { entryId: info.entryId, decoder: 'ctc' });
      assert.ok(again.ok, JSON.stringify(again));
      const redone = (speaker: string): HistoryEntry['segments'] => again.value.segments.filter((s) => s.speaker === speaker);
      const youAgain = errorRates(you.text, redone('You').map((s) => s.text).join(' ')).wer;
      const othersAgain = errorRates(others.map((o) => o.text).join(' '), redone('Others').map((s) => s.text).join(' ')).wer;
      t.diagnostic(`re-transcribed: You WER ${youAgain.toFixed(3)}, Others WER ${othersAgain.toFixed(3)}`);
      assert.ok(youAgain <= 0.1 && othersAgain <= 0.1, JSON.stringify(again.value.segments.map((s) => [s.speaker, s.start, s.text])));
      assert.deepEqual(again.value.markers?.map((m) => m.text), ['first decision'], 'markers are kept');
      for (const s of redone('Others')) assert.ok(played.some((p) => s.start > p.start - 0.5 && s.end < p.end + 1), `Others "${s.text}" at ${s.start}–${s.end}`);
      // Deleting the entry deletes its audio.
      assert.ok((await client.invoke('history:delete', { id: info.entryId })).ok);
      assert.equal(existsSync(audioDir), false);
    } finally {
      await Promise.race([server.client.close(), sleep(5000)]);
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  });

  test('SIGKILL of the server mid-meeting: at the next start the meeting is recovered with every final emitted before and the audio up to ≤ 2 s before the kill', async (t) => {
    if (typeof pulse === 'string') return t.skip(`PulseAudio cannot start here: ${pulse}`);
    const userDataDir = join(dir, 'user-b');
    mkdirSync(userDataDir);
    writeTestSettings(userDataDir, { dictation: { preRollMs: 0 } });
    const server = await startServer(userDataDir, pulse.env);
    const { client } = server;
    const started = await client.invoke<MeetingInfo>('meeting:start', { micSampleRate: RATE });
    assert.ok(started.ok, JSON.stringify(started));
    const info = started.value;
    const fed: { at: number; samples: number }[] = [];
    const stop = { now: false };
    const mic = readWav16(you.wav).samples;
    const feeding = feedMic(client, info, mic, fed, stop);
    await sleep(800);
    await pulse.play(others[0]!.wav);
    // Mid-meeting: once both tracks have a final with text (and the microphone is still being fed).
    const deadline = performance.now() + 30_000;
    while (!(finalsOf(client).some((f) => f.track === 'you' && f.text) && finalsOf(client).some((f) => f.track === 'others' && f.text))) {
      assert.ok(performance.now() < deadline, 'both tracks had a final within 30 s');
      await sleep(50);
    }
    await sleep(300);
    const killedAt = performance.now();
    server.child.kill('SIGKILL');
    stop.now = true;
    await feeding;
    await exited(server.child);
    const emitted = finalsOf(client);
    await Promise.race([client.close(), sleep(5000)]);

    const again = await startServer(userDataDir, pulse.env);
    try {
      await sleep(300);
      const notices = again.client.events.filter((e) => e.event === 'notice').map((e) => e.data as Notice);
      assert.ok(notices.some((n) => n.code === 'MEETING_RECOVERED'), JSON.stringify(notices));
      const entry = await again.client.invoke<HistoryEntry>('history:get', { id: info.entryId });
      assert.ok(entry.ok, JSON.stringify(entry));
      assert.equal(entry.value.recovered, true);
      assert.equal(entry.value.kind, 'meeting');
      // Every final emitted before the kill is in the entry (the journal fdatasyncs each before the event goes out).
      const kept = entry.value.segments.map((s) => `${s.speaker}|${s.start.toFixed(3)}|${s.text}`);
      for (const f of emitted) assert.ok(kept.includes(`${f.speaker}|${f.start.toFixed(3)}|${f.text}`), `final "${f.text}" (${f.speaker}) was recovered`);
      // The microphone's audio: exactly what was sent, up to at least 2 s before the kill.
      const audioDir = join(userDataDir, 'history', 'audio', info.entryId);
      const youWav = decodeWav(readFileSync(join(audioDir, 'you.wav'))).samples;
      const sentBefore = [...fed].reverse().find((f) => f.at <= killedAt - 2000)?.samples ?? 0;
      assert.ok(sentBefore > 0);
      assert.ok(youWav.length >= sentBefore, `you.wav holds ${youWav.length} samples; ${sentBefore} were sent 2 s before the kill`);
      for (let i = 0; i < youWav.length; i += 97) {
        assert.ok(Math.abs(youWav[i]! - mic[i]!) <= 1 / 32767 + 1e-6, `you.wav sample ${i} is what was sent`);
      }
      const othersWav = decodeWav(readFileSync(join(audioDir, 'others.wav'))).samples;
      assert.ok(othersWav.length > 0, 'others.wav holds the system audio up to the crash');
    } finally {
      await Promise.race([again.client.close(), sleep(5000)]);
      again.child.kill('SIGTERM');
      await exited(again.child);
    }
  });

  test('the page goes away mid-meeting (a reload): the meeting records on, the next page takes it over with the transcript so far, the microphone resumes; both WAVs stay aligned, the gap is silence and a marker', async (t) => {
    if (typeof pulse === 'string') return t.skip(`PulseAudio cannot start here: ${pulse}`);
    const userDataDir = join(dir, 'user-c');
    mkdirSync(userDataDir);
    writeTestSettings(userDataDir, { dictation: { preRollMs: 0 } });
    const server = await startServer(userDataDir, pulse.env);
    let client = server.client;
    try {
      const askedAt = performance.now();
      const started = await client.invoke<MeetingInfo>('meeting:start', { micSampleRate: RATE });
      assert.ok(started.ok, JSON.stringify(started));
      const info = started.value;
      const mic = readWav16(you.wav).samples;
      // Before the reload: the first ~2 strings of the microphone, and one Others string.
      const cut = Math.round(((you.parts[1]!.end + you.parts[2]!.start) / 2) * RATE);
      const playing = (async () => {
        await sleep(800);
        await pulse.play(others[0]!.wav);
      })();
      const sentBefore = await feedMic(client, info, mic.subarray(0, cut), [], { now: false });
      await playing;
      const deadline = performance.now() + 30_000;
      while (!(finalsOf(client).some((f) => f.track === 'you' && f.text) && finalsOf(client).some((f) => f.track === 'others' && f.text))) {
        assert.ok(performance.now() < deadline, 'both tracks had a final within 30 s');
        await sleep(50);
      }
      const shownBefore = finalsOf(client).filter((f) => f.text);
      const { port, token } = server;
      const goneAt = performance.now();
      await client.close();
      await sleep(2500); // the page is away: the microphone track is padded with silence meanwhile
      client = await BridgeClient.connect(port, token);
      const current = await client.invoke<MeetingCurrent | null>('meeting:current');
      assert.ok(current.ok && current.value, JSON.stringify(current));
      assert.equal(current.value.info.meetingId, info.meetingId);
      assert.equal(current.value.state, 'recording', 'the meeting is still running');
      assert.equal(current.value.micDetached, true);
      assert.equal(current.value.info.sources.find((s) => s.track === 'you')!.state, 'interrupted');
      assert.equal(current.value.info.sources.find((s) => s.track === 'others')!.state, 'recording', 'the system audio never stopped');
      const attached = await client.invoke<MeetingInfo>('meeting:attach', { meetingId: info.meetingId });
      assert.ok(attached.ok, JSON.stringify(attached));
      assert.notEqual(attached.value.micStreamId, info.micStreamId, 'a new microphone stream');
      // The transcript so far, as the reloaded page reads it: every final shown before the reload.
      const entry = await client.invoke<HistoryEntry>('history:get', { id: info.entryId });
      assert.ok(entry.ok && entry.value.live, JSON.stringify(entry));
      const kept = entry.value.segments.map((s) => `${s.speaker}|${s.text}`);
      for (const f of shownBefore) assert.ok(kept.includes(`${f.speaker}|${f.text}`), `"${f.text}" (${f.speaker}) is shown again`);
      // After the reload: the rest of the microphone from sample 0 of the new stream, and another Others string.
      const resumedAt = performance.now();
      const playingAfter = (async () => {
        await sleep(1000);
        await pulse.play(others[1]!.wav);
      })();
      // The rest, then 1.5 s of silence (the last Others string's closing pause): the microphone is fed up to the stop.
      const rest = new Float32Array(mic.length - cut + Math.round(1.5 * RATE));
      rest.set(mic.subarray(cut));
      const sentAfter = await feedMic(client, attached.value, rest, [], { now: false });
      await playingAfter;
      const stopped = await client.invoke<MeetingSummary>('meeting:stop', { meetingId: info.meetingId, sentSamples: sentAfter });
      assert.ok(stopped.ok, JSON.stringify(stopped));
      const after = finalsOf(client).filter((f) => f.text);
      const afterYou = after.filter((f) => f.track === 'you');
      const afterOthers = after.filter((f) => f.track === 'others');
      t.diagnostic(`after the reload: ${after.map((f) => `${f.speaker} [${f.start.toFixed(2)}] ${f.text}`).join(' | ')}`);
      assert.ok(afterYou.length > 0 && afterOthers.length > 0, 'finals of both tracks arrive after the reload');
      const restText = you.parts.filter((p) => p.start * RATE >= cut).map((p) => p.text).join(' ');
      assert.ok(errorRates(restText, afterYou.map((f) => f.text).join(' ')).wer <= 0.2, `You after: ${afterYou.map((f) => f.text).join(' | ')} vs ${restText}`);
      const gapSec = (resumedAt - goneAt) / 1000;
      // Finals after the reload sit later than the words before it by at least the gap: times kept, not spliced.
      const lastBefore = Math.max(...shownBefore.filter((f) => f.track === 'you').map((f) => f.end));
      assert.ok(afterYou[0]!.start > lastBefore + gapSec - 0.5, `first You final after the reload at ${afterYou[0]!.start.toFixed(2)} s; before it ended at ${lastBefore.toFixed(2)} s, gap ${gapSec.toFixed(2)} s`);
      const summary = stopped.value;
      const youReport = summary.tracks.find((r) => r.track === 'you')!;
      assert.ok(youReport.samplesInterrupted / RATE > gapSec - 0.5 && youReport.samplesInterrupted / RATE < gapSec + 1, `interrupted ${youReport.samplesInterrupted / RATE} s for a gap of ${gapSec.toFixed(2)} s`);
      // Both WAVs: aligned durations (offset + length), the gap silent in you.wav, the audio around it what was sent.
      const final = await client.invoke<HistoryEntry>('history:get', { id: info.entryId });
      assert.ok(final.ok);
      const offsets = Object.fromEntries((final.value.audio ?? []).map((a) => [a.track, a.offsetSec]));
      const audioDir = join(userDataDir, 'history', 'audio', info.entryId);
      const youWav = decodeWav(readFileSync(join(audioDir, 'you.wav'))).samples;
      const othersWav = decodeWav(readFileSync(join(audioDir, 'others.wav'))).samples;
      const youEnd = offsets.you! + youWav.length / RATE;
      const othersEnd = offsets.others! + othersWav.length / RATE;
      t.diagnostic(`you.wav ends at ${youEnd.toFixed(3)} s, others.wav at ${othersEnd.toFixed(3)} s; gap ${gapSec.toFixed(2)} s, ${youReport.samplesInterrupted} samples of silence`);
      assert.ok(Math.abs(youEnd - othersEnd) < 0.3, `the tracks end together: you ${youEnd.toFixed(3)} s, others ${othersEnd.toFixed(3)} s`);
      // The resumed microphone's first sample sits at the meeting time it was sent (not spliced onto the gap's start).
      const resumedSec = offsets.you! + (sentBefore + youReport.samplesInterrupted) / RATE;
      const resumedWall = (resumedAt - askedAt) / 1000;
      assert.ok(Math.abs(resumedSec - resumedWall) < 0.3, `resumed audio at ${resumedSec.toFixed(3)} s in the track, sent at ${resumedWall.toFixed(3)} s`);
      assert.equal(youWav.length, sentBefore + youReport.samplesInterrupted + sentAfter, 'you.wav: before, the silence, after');
      for (let i = sentBefore; i < sentBefore + youReport.samplesInterrupted; i += 101) assert.equal(youWav[i], 0);
      const k = sentBefore + youReport.samplesInterrupted + 4321;
      assert.ok(Math.abs(youWav[k]! - mic[cut + 4321]!) <= 1 / 32767 + 1e-6, 'the resumed audio follows the gap');
      const gap = (final.value.markers ?? []).find((m) => m.text.startsWith('The microphone was interrupted'));
      assert.ok(gap, JSON.stringify(final.value.markers));
      assert.ok(Math.abs(gap.at - (offsets.you! + sentBefore / RATE)) < 0.05, `the gap marker at ${gap.at}`);
      assert.ok(client.events.some((e) => e.event === 'meeting:marker'), 'the reloaded page was told of the gap');
    } finally {
      await Promise.race([client.close(), sleep(5000)]);
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
  });
});
