// Meeting mode: the microphone ("You", frames from the renderer on a stream id
// like a dictation's) and the system audio ("Others", captured in main by
// system-audio.ts) recorded at once, each a MeetingTrack journaled to a WAV in
// the History entry's audio folder and transcribed as it goes; finals carry
// their track's speaker label and meeting times, so the two tracks interleave
// by time. One meeting at a time (there is one system audio). A source that
// cannot be captured is named with what to do, and the other keeps recording.
// Where the system audio is captured by the client (Windows/macOS loopback,
// loopback-capture.ts) it arrives like the microphone, on a stream id of its own.
//
// A meeting outlives its page: when the client goes away (a reload, a renderer
// crash, a web tab reloaded) the meeting records on; its client-fed tracks are
// padded with silence at the meeting clock's pace (mic-gap.ts) so both WAVs
// stay aligned, and the page that comes back finds it (meeting:current), takes
// it over (meeting:attach: new stream ids) and resumes; the gap is a marker.
// Nobody back within REATTACH_GRACE_MS: the meeting is stopped and kept.
// Electron-free; the adapters route the streams here (isMicStream).
import fs from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import type {
  DictationSettings, HistoryEntrySummary, MeetingCurrent, SystemAudioCheck, MeetingFinal, MeetingInfo, MeetingMarker, MeetingSource, MeetingStartOptions, MeetingStateEvent,
  MeetingSummary, MeetingTrackName, Notice, Word,
} from '../../ipc/contract.js';
import type { DecoderName } from '../../../native/index.js';
import { CodedError } from '../../../types/errors.js';
import { FILE_WINDOW_SEC } from '../engine/engine-host.js';
import { fsyncDir } from '../util/atomic-file.js';
import { describeWriteError } from '../util/write-error.js';
import type { EntryRecord } from '../history/records.js';
import type { MeetingEntryOwner } from '../history/history-service.js';
import type { Logger } from '../log.js';
import type { Emit, SessionDecoder, SessionVad } from '../sessions/session.js';
import { trainedVadSegmenterOptions } from '../sessions/segmenter.js';
import { MeetingRecorder } from './meeting-recorder.js';
import { MeetingSpeakers, roomSpeakerName, type SessionDiarizer } from './meeting-speakers.js';
import { defaultSpeakerName, dominantSpeaker } from '../../shared/diarization.js';
import { MeetingTrack, TRACK_RATE, type MeetingTrackOptions, type TrackFinal, type TrackPartial } from './meeting-track.js';
import { MicInterruption, silenceToReach } from './mic-gap.js';
import type { SourceProblem, SystemAudioCapture, SystemAudioStarter } from './system-audio.js';
import { WavJournalWriter } from './wav-journal.js';
import type { SystemAudioPlan } from '../../shared/system-audio-plan.js';
import type { VocabularyPhrase } from '../../shared/vocabulary.js';

/**
 * Microphone stream ids of meetings ("s<n>") sit far above the dictation sessions' numbers and below the web
 * protocol's upload flag (bit 30, 0x40000000): a meeting stream is an ordinary audio stream on the wire.
 */
export const MEETING_STREAM_BASE = 1_000_000_000;
/** How long the check before Start waits for the system audio's first frame or its failure. */
export const SYSTEM_AUDIO_CHECK_MS = 1500;
const SPEAKERS: Record<MeetingTrackName, string> = { you: 'You', others: 'Others' };
const STATE_INTERVAL_MS = 100;
const DRAIN_TIMEOUT_MS = 1000;
/** How long a meeting whose page is gone waits for one to take it over before it is stopped and kept (ms). */
export const REATTACH_GRACE_MS = 120_000;
const DETACHED_REASON = 'The page that records this track is gone (reloaded or crashed); the meeting records on, and this track resumes when the page is back.';

export interface MeetingHistory {
  newMeetingEntry(): { header: EntryRecord; file: string; audioDir: string } | null;
  meetingStarted(summary: HistoryEntrySummary, owner: MeetingEntryOwner): void;
  meetingEnded(summary: HistoryEntrySummary): void;
}

export interface MeetingServiceOptions {
  history: MeetingHistory;
  /** Decodes, and (EngineHost) a Silero stream per track when the engine runs one. */
  engine: SessionDecoder & { vadStream?: () => SessionVad | null; diarizerStream?: () => SessionDiarizer | null };
  emit: Emit;
  notify: (notice: Notice) => void;
  log: Logger;
  settings: () => {
    dictation: DictationSettings; decoder: DecoderName | 'auto'; vocabulary?: readonly VocabularyPhrase[];
    /** The microphone track is diarized too (settings.diarizeMicrophone); absent: only "Others". */
    diarizeMicrophone?: boolean;
  };
  /** How the system audio is captured in main; null where it is not (Windows/macOS: the renderer's loopback). */
  systemAudio: SystemAudioStarter | null;
  /** Where main does not capture it: whether the client does (loopback) or why nobody can (system-audio-plan.ts). */
  systemAudioPlan?: SystemAudioPlan;
  /** WAV sync interval (ms, default 1000). */
  syncIntervalMs?: number;
  /** REATTACH_GRACE_MS unless given (tests). */
  reattachGraceMs?: number;
  /** Speakers of the "Others" track are refined at the end of the meeting (every word again, from all its frames). */
  refineSpeakers?: (entryId: string, words: ReadonlyMap<number, Word[]>) => Promise<unknown>;
  /** Live dictation is running: meeting partials wait (a running meeting decode cannot be preempted). */
  dictationLive?: () => boolean;
  /** At a meeting's start: the engine's streams and their options when a streaming model is resident, else undefined. */
  stream?: () => MeetingTrackOptions['stream'];
}

interface TrackState {
  track: MeetingTrack;
  source: MeetingSource;
  /** Meeting seconds of the track's sample 0, known at its first frame. */
  offsetSec: number | null;
  file: string;
  /** Frames come from the client (the microphone; the loopback system audio on Windows/macOS). */
  fromClient: boolean;
  /** The stream id they come on now (null: captured in main, none, or the client is gone). */
  streamId: string | null;
  /** The client is gone or has not resumed yet: the track is padded with silence until its next frame. */
  interruption: MicInterruption | null;
  /** Its WAV could not be written (a full disk): the track stopped there, and nothing it claims goes past its audio. */
  audioFailed: boolean;
  /** The track's speakers, when a diarizer is loaded and the track is diarized ("Others"; the microphone when asked). */
  speakers: MeetingSpeakers | null;
  /** Its finals' words in track time and as recorded (meeting time), for the speakers' refinement at the end. */
  spoken: { segmentId: number; trackWords: Word[]; words: Word[] }[];
}

class Meeting implements MeetingEntryOwner {
  readonly tracks = new Map<MeetingTrackName, TrackState>();
  /** The client is gone (detachOwner) and nobody has taken the meeting over yet. */
  ownerGone = false;
  graceTimer: NodeJS.Timeout | null = null;
  readonly t0 = performance.now();
  readonly startedAt = new Date();
  state: MeetingStateEvent['state'] = 'recording';
  capture: SystemAudioCapture | null = null;
  finals = 0;
  timer: NodeJS.Timeout | null = null;
  stopping: Promise<MeetingSummary> | null = null;
  discarded = false;
  /** Finals go out in order, each once its record is on disk. */
  emitting: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    public owner: string,
    readonly recorder: MeetingRecorder,
    readonly onDiscard: (meeting: Meeting) => Promise<void>,
  ) {}

  elapsedSec(): number {
    return (performance.now() - this.t0) / 1000;
  }

  get micStreamId(): string | null {
    return this.tracks.get('you')?.streamId ?? null;
  }

  discard(): Promise<void> {
    return this.onDiscard(this);
  }
}

export class MeetingService {
  private meeting: Meeting | null = null;
  private nextId = 1;
  private nextStream = 1;

  constructor(private readonly opts: MeetingServiceOptions) {}

  get running(): boolean {
    return this.meeting !== null && this.meeting.state !== 'stopped';
  }

  /** Is this a meeting's microphone stream id (the adapters route its frames to pushMic)? */
  isMicStream(streamId: string): boolean {
    const m = /^s(\d+)$/.exec(streamId);
    return m !== null && Number(m[1]) >= MEETING_STREAM_BASE;
  }

  async start(owner: string, options: MeetingStartOptions = {}): Promise<MeetingInfo> {
    if (this.meeting) throw new CodedError('BUSY', 'A meeting is already being recorded. Stop it before starting another.');
    const micRate = options.micSampleRate ?? TRACK_RATE;
    if (micRate !== 0 && micRate < 8000) throw new CodedError('BAD_ARGUMENT', `A microphone rate of ${micRate} Hz is too low (8000 Hz at least).`);
    const entry = this.opts.history.newMeetingEntry();
    if (!entry) {
      throw new CodedError('NOT_SUPPORTED', 'Meetings are kept in History, and History is off.');
    }
    const plan = this.opts.systemAudioPlan;
    const othersFromClient = options.systemAudio !== false && !this.opts.systemAudio && (options.systemAudioFromClient ?? plan?.kind === 'client-loopback');
    const id = `m${this.nextId++}`;
    await fs.mkdir(entry.audioDir, { recursive: true });
    const recorder = await MeetingRecorder.create(entry.file, entry.header, (error) => this.writeFailed(error));
    const meeting = new Meeting(id, owner, recorder, (m) => this.discard(m));
    this.meeting = meeting;
    try {
      const { dictation, decoder, vocabulary, diarizeMicrophone } = this.opts.settings();
      const segmenter = {
        pauseMs: dictation.pauseMs,
        maxSegmentSec: FILE_WINDOW_SEC,
        preRollMs: dictation.preRollMs,
        thresholdDb: dictation.vadThresholdDb,
      };
      const addTrack = async (name: MeetingTrackName, rate: number, source: MeetingSource, fromClient: boolean): Promise<void> => {
        const file = `${name}.wav`;
        const wav = await WavJournalWriter.create(path.join(entry.audioDir, file), {
          sampleRate: TRACK_RATE,
          syncIntervalMs: this.opts.syncIntervalMs,
          onError: (error) => this.audioWriteFailed(meeting, name, error),
        });
        // Each track its own Silero stream when the engine runs one (else the energy VAD).
        const vad = dictation.vadModel === 'silero' ? this.opts.engine.vadStream?.() ?? null : null;
        // The computer's audio may hold several people: a diarizer, when loaded, tells them apart. So may the
        // microphone in a room (when asked): its people are "Room 1" …, never confused with the call's "Speaker 1" ….
        const diarized = name === 'others' || diarizeMicrophone === true;
        const diarizer = diarized ? this.opts.engine.diarizerStream?.() ?? null : null;
        const speakers = diarizer
          ? new MeetingSpeakers(diarizer, (message) => this.opts.log.warn(message), name === 'others' ? defaultSpeakerName : roomSpeakerName)
          : null;
        const track = new MeetingTrack({
          track: name,
          inputRate: rate,
          wav,
          engine: this.opts.engine,
          segmenter: vad ? { ...segmenter, ...trainedVadSegmenterOptions(dictation) } : segmenter,
          vad,
          // A stream lost mid-meeting (an engine restart, another Silero file loaded): a new one, if Silero is still wanted.
          reopenVad: vad ? () => (this.opts.settings().dictation.vadModel === 'silero' ? this.opts.engine.vadStream?.() ?? null : null) : undefined,
          onAudio: speakers ? (pcm) => speakers.push(pcm) : undefined,
          decoder: decoder === 'auto' ? undefined : decoder,
          vocabulary,
          onFinal: (final) => this.onFinal(meeting, final),
          onPartial: (partial) => this.onPartial(meeting, partial),
          partialIntervalMs: dictation.partialIntervalMs,
          minWordConfidence: dictation.minWordConfidence,
          partialsPaused: this.opts.dictationLive,
          onProblem: (code, message) => this.problem(meeting, name, code, message),
          log: this.opts.log.child(`${id}-${name}`),
          stream: this.opts.stream?.(),
        });
        meeting.tracks.set(name, { track, source, offsetSec: null, file, fromClient, streamId: fromClient ? this.newStreamId() : null, interruption: null, audioFailed: false, speakers, spoken: [] });
      };
      const mic: MeetingSource = micRate
        ? { track: 'you', speaker: SPEAKERS.you, state: 'recording', reason: null, action: null }
        : { track: 'you', speaker: SPEAKERS.you, state: 'unavailable', reason: 'The meeting was started without the microphone.', action: 'Start a new meeting with the microphone on.' };
      await addTrack('you', micRate || TRACK_RATE, mic, micRate > 0);
      const others: MeetingSource = { track: 'others', speaker: SPEAKERS.others, state: 'recording', reason: null, action: null };
      await addTrack('others', othersFromClient ? (options.systemAudioSampleRate ?? TRACK_RATE) : TRACK_RATE, others, othersFromClient);
      await fsyncDir(entry.audioDir);
      if (options.systemAudio === false) {
        Object.assign(others, { state: 'unavailable', reason: 'The meeting was started without the system audio.', action: 'Start a new meeting with the system audio on.' });
      } else if (othersFromClient) {
        // The client's loopback capture (renderer/meeting/loopback.ts) sends it on othersStreamId; a failure there the page shows.
      } else if (!this.opts.systemAudio && plan?.kind === 'unavailable') {
        Object.assign(others, { state: 'unavailable', ...plan.problem });
      } else if (!this.opts.systemAudio) {
        Object.assign(others, {
          state: 'unavailable',
          reason: `Recording the system audio on ${process.platform} needs the desktop app's loopback capture, which this build does not have.`,
          action: 'The microphone keeps recording; play the other side through speakers, or record it separately and transcribe the file.',
        });
      } else {
        meeting.capture = this.opts.systemAudio(TRACK_RATE, {
          onFrame: (frame) => this.push(meeting, 'others', frame),
          onEnd: (problem) => {
            if (problem) this.sourceLost(meeting, 'others', problem);
          },
        });
      }
      this.opts.history.meetingStarted(recorder.summary(true), meeting);
      meeting.timer = setInterval(() => {
        this.padInterrupted(meeting);
        this.emitState(meeting);
      }, STATE_INTERVAL_MS);
      meeting.timer.unref();
      this.opts.log.info(`meeting ${id} started (entry ${entry.header.id}${meeting.capture ? `, system audio: ${meeting.capture.description}` : ''})`);
      this.emitState(meeting);
      return this.info(meeting);
    } catch (error) {
      this.meeting = null;
      for (const t of meeting.tracks.values()) {
      t.speakers?.close();
      await t.track.abort();
    }
      await recorder.close(0).catch(() => undefined);
      throw error;
    }
  }

  private newStreamId(): string {
    return `s${MEETING_STREAM_BASE + this.nextStream++}`;
  }

  private info(meeting: Meeting): MeetingInfo {
    return {
      meetingId: meeting.id,
      entryId: meeting.recorder.header.id,
      micStreamId: meeting.micStreamId,
      othersStreamId: meeting.tracks.get('others')?.streamId ?? null,
      startedAt: meeting.startedAt.toISOString(),
      sources: this.sources(meeting),
    };
  }

  /** A frame of a client-fed track (the microphone, or the client's loopback system audio) from the meeting's client. */
  pushMic(streamId: string, frame: Float32Array, owner: string, startSample?: number): boolean {
    const meeting = this.meeting;
    if (!meeting || meeting.owner !== owner || meeting.state !== 'recording' || meeting.ownerGone) return false;
    const state = [...meeting.tracks.values()].find((t) => t.streamId === streamId);
    if (!state) return false;
    if (state.interruption) this.resumeTrack(meeting, state, frame.length);
    else if (state.source.state === 'interrupted') Object.assign(state.source, { state: 'recording', reason: null, action: null });
    this.push(meeting, state.track.track, frame, startSample);
    return true;
  }

  /**
   * Can the system audio be recorded? Asked before Start (issue 44 item 5): the capture runs until its first
   * frame or its end, at most SYSTEM_AUDIO_CHECK_MS, and stops; a meeting that records already answers yes.
   */
  async checkSystemAudio(): Promise<SystemAudioCheck> {
    const plan = this.opts.systemAudioPlan;
    if (this.meeting) return { ok: true, source: 'recording now' };
    if (!this.opts.systemAudio) {
      if (plan?.kind === 'client-loopback') return { ok: true, source: 'the desktop app\'s loopback capture' };
      if (plan?.kind === 'unavailable') return { ok: false, ...plan.problem };
      return { ok: false, reason: `Recording the system audio on ${process.platform} needs the desktop app's loopback capture, which this build does not have.`, action: 'The microphone still records.' };
    }
    const start = this.opts.systemAudio;
    return new Promise<SystemAudioCheck>((resolve) => {
      let settled = false;
      let capture: SystemAudioCapture | null = null;
      const settle = (answer: SystemAudioCheck): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void capture?.stop().catch(() => undefined);
        resolve(answer);
      };
      // No frame yet and no exit: the tool runs and waits for sound, which is a capture that works.
      const timer = setTimeout(() => settle({ ok: true, source: capture?.description ?? 'the system audio' }), SYSTEM_AUDIO_CHECK_MS);
      capture = start(TRACK_RATE, {
        onFrame: () => settle({ ok: true, source: capture?.description ?? 'the system audio' }),
        onEnd: (problem) => settle(problem ? { ok: false, reason: problem.reason, action: problem.action } : { ok: true, source: 'the system audio' }),
      });
    });
  }

  /** The meeting being recorded, for a page that loads while it runs. */
  current(): MeetingCurrent | null {
    const meeting = this.meeting;
    if (!meeting || meeting.state === 'stopped') return null;
    return { info: this.info(meeting), state: meeting.state, elapsedSec: meeting.elapsedSec(), micDetached: meeting.ownerGone };
  }

  /**
   * The client that started the meeting went away but the meeting must go on (a reload, a renderer crash, a
   * dropped web socket): its client-fed tracks are padded with silence from where their audio ends, and the
   * meeting waits (REATTACH_GRACE_MS) for a page to take it over.
   */
  detachOwner(owner: string): void {
    const meeting = this.meeting;
    if (!meeting || meeting.owner !== owner || meeting.state !== 'recording' || meeting.ownerGone) return;
    meeting.ownerGone = true;
    for (const state of meeting.tracks.values()) {
      if (!state.fromClient) continue;
      state.streamId = null;
      if (state.source.state !== 'recording') continue;
      const what = state.track.track === 'you' ? 'microphone' : 'system audio';
      if (state.offsetSec !== null) state.interruption ??= new MicInterruption(this.trackEnd(state), 'the page was reloaded or crashed', what);
      Object.assign(state.source, { state: 'interrupted', reason: DETACHED_REASON, action: 'Open the app window again (reload it); the meeting is still recording.' });
    }
    const grace = this.opts.reattachGraceMs ?? REATTACH_GRACE_MS;
    meeting.graceTimer = setTimeout(() => {
      this.opts.log.warn(`meeting ${meeting.id}: no page took it over within ${grace} ms; stopping it`);
      void this.stop(meeting.id).catch(() => undefined);
    }, grace);
    meeting.graceTimer.unref();
    this.opts.log.info(`meeting ${meeting.id}: its page is gone (${owner}); recording on`);
    this.emitState(meeting);
  }

  /** A page takes over the meeting whose page is gone: new stream ids for its client-fed tracks (frames from 0). */
  attach(meetingId: string, owner: string): MeetingInfo {
    const meeting = this.require(meetingId);
    if (meeting.state !== 'recording') throw new CodedError('BAD_ARGUMENT', 'The meeting is finishing; it can no longer be taken over.');
    if (!meeting.ownerGone && meeting.owner !== owner) {
      throw new CodedError('BUSY', 'This meeting is being recorded by another window or tab. Use that one, or close it: the meeting then waits to be taken over here.');
    }
    if (meeting.graceTimer) clearTimeout(meeting.graceTimer);
    meeting.graceTimer = null;
    meeting.ownerGone = false;
    meeting.owner = owner;
    for (const state of meeting.tracks.values()) {
      if (!state.fromClient || state.source.state !== 'interrupted') continue;
      state.streamId = this.newStreamId();
      state.track.restartStream();
      state.source.reason = 'The page is back; waiting for this track\'s audio to resume.';
    }
    this.opts.log.info(`meeting ${meeting.id}: taken over by ${owner}`);
    this.emitState(meeting);
    return this.info(meeting);
  }

  /** Meeting seconds where the track's timeline ends now. */
  private trackEnd(state: TrackState): number {
    return (state.offsetSec ?? 0) + state.track.samples / TRACK_RATE;
  }

  /** While a client-fed track's page is away: silence up to (a little behind) the meeting clock. */
  private padInterrupted(meeting: Meeting): void {
    if (meeting.state !== 'recording') return;
    for (const state of meeting.tracks.values()) {
      const gap = state.interruption;
      if (!gap) continue;
      state.track.padSilence(silenceToReach(this.trackEnd(state), gap.padTarget(meeting.elapsedSec()), state.track.inputRate));
    }
  }

  /** The first frame after the page came back: the gap closed up to where that frame was captured, and named in a marker. */
  private resumeTrack(meeting: Meeting, state: TrackState, frameSamples: number): void {
    const gap = state.interruption!;
    state.interruption = null;
    const to = gap.resume(meeting.elapsedSec(), frameSamples, state.track.inputRate);
    state.track.padSilence(silenceToReach(this.trackEnd(state), to, state.track.inputRate));
    state.track.restartStream();
    Object.assign(state.source, { state: 'recording', reason: null, action: null });
    this.gapMarker(meeting, gap.marker());
    this.emitState(meeting);
  }

  private gapMarker(meeting: Meeting, marker: MeetingMarker): void {
    this.opts.log.info(`meeting ${meeting.id}: ${marker.text}`);
    void meeting.recorder.add({ type: 'marker', ...marker }).then(() => {
      if (!meeting.discarded) this.opts.emit('meeting:marker', { meetingId: meeting.id, kind: 'gap', ...marker });
    });
  }

  private push(meeting: Meeting, name: MeetingTrackName, frame: Float32Array, startSample?: number): void {
    const state = meeting.tracks.get(name);
    if (!state || meeting.state !== 'recording' || state.source.state !== 'recording') return;
    if (state.offsetSec === null) {
      // Sample 0 was captured one frame before it arrived.
      state.offsetSec = Math.max(0, meeting.elapsedSec() - frame.length / state.track.inputRate);
      void meeting.recorder.add({ type: 'track', track: name, speaker: state.source.speaker, file: state.file, offsetSec: state.offsetSec });
    }
    state.track.push(frame, startSample);
  }

  private onFinal(meeting: Meeting, final: TrackFinal): void {
    const state = meeting.tracks.get(final.track)!;
    const offset = state.offsetSec ?? 0;
    // Once its audio could not be written, no time of the track goes past the audio kept (its text is kept).
    const end = state.audioFailed ? offset + state.track.keptSamples / TRACK_RATE : Number.POSITIVE_INFINITY;
    const at = (t: number): number => Math.min(t, end);
    const event: MeetingFinal = {
      meetingId: meeting.id,
      track: final.track,
      speaker: state.source.speaker,
      segmentId: meeting.finals++,
      start: at(offset + final.startSample / TRACK_RATE),
      end: at(offset + final.endSample / TRACK_RATE),
      text: final.text,
      words: (state.speakers ? state.speakers.attribute(final.words) : final.words).map((w) => ({ ...w, start: at(w.start + offset), end: at(w.end + offset) })),
      devicesRan: final.devicesRan,
      trackSegment: final.segmentId,
      ...(final.phrasesFired?.length ? { phrasesFired: final.phrasesFired } : {}),
    };
    if (state.speakers) state.spoken.push({ segmentId: event.segmentId, trackWords: final.words, words: event.words });
    if (meeting.discarded) return;
    // Shown once it is on disk (one fdatasync, milliseconds): what the UI showed survives a crash.
    const written = meeting.recorder.add({
      type: 'segment', sessionId: meeting.id, segmentId: event.segmentId, start: event.start, end: event.end,
      text: event.text, devicesRan: event.devicesRan, words: event.words, speaker: event.speaker,
      ...(event.phrasesFired ? { phrasesFired: event.phrasesFired } : {}),
    });
    meeting.emitting = meeting.emitting.then(() => written).then(() => {
      if (!meeting.discarded) this.opts.emit('meeting:transcript', event);
    });
  }

  private onPartial(meeting: Meeting, partial: TrackPartial): void {
    const state = meeting.tracks.get(partial.track)!;
    if (meeting.discarded || meeting.state !== 'recording') return;
    this.opts.emit('meeting:partial', {
      meetingId: meeting.id,
      track: partial.track,
      speaker: state.source.speaker,
      trackSegment: partial.segmentId,
      start: (state.offsetSec ?? 0) + partial.startSample / TRACK_RATE,
      text: partial.text,
    });
  }

  /** Resolves once the marker is on disk. */
  async marker(meetingId: string, text: string): Promise<MeetingMarker> {
    const meeting = this.require(meetingId);
    if (meeting.state !== 'recording') throw new CodedError('BAD_ARGUMENT', 'The meeting is no longer recording; markers can be added while it records.');
    const marker: MeetingMarker = { at: meeting.elapsedSec(), text: text.trim() };
    await meeting.recorder.add({ type: 'marker', ...marker });
    return marker;
  }

  private require(meetingId: string): Meeting {
    const meeting = this.meeting;
    if (!meeting || meeting.id !== meetingId) throw new CodedError('NOT_FOUND', `There is no meeting ${meetingId} being recorded.`);
    return meeting;
  }

  /** Stops the meeting: frames in flight (sentSamples) are awaited, every open segment transcribed, the files closed. */
  stop(meetingId: string, sentSamples?: number, othersSentSamples?: number): Promise<MeetingSummary> {
    const meeting = this.require(meetingId);
    meeting.stopping ??= this.finish(meeting, sentSamples, othersSentSamples);
    return meeting.stopping;
  }

  private async finish(meeting: Meeting, sentSamples?: number, othersSentSamples?: number): Promise<MeetingSummary> {
    const you = meeting.tracks.get('you')!;
    const others = meeting.tracks.get('others')!;
    if (sentSamples !== undefined || othersSentSamples !== undefined) {
      const deadline = performance.now() + DRAIN_TIMEOUT_MS;
      const behind = (): boolean => you.track.receivedSamples < (sentSamples ?? 0) || (others.fromClient && others.track.receivedSamples < (othersSentSamples ?? 0));
      while (behind() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    }
    if (meeting.graceTimer) clearTimeout(meeting.graceTimer);
    // A track still interrupted: silence to the end, so both tracks end together, and the gap named.
    for (const state of meeting.tracks.values()) {
      const gap = state.interruption;
      if (!gap) continue;
      state.interruption = null;
      state.track.padSilence(silenceToReach(this.trackEnd(state), meeting.elapsedSec(), state.track.inputRate));
      this.gapMarker(meeting, gap.marker(null));
    }
    meeting.state = 'finalizing';
    this.emitState(meeting);
    await meeting.capture?.stop();
    await Promise.all([...meeting.tracks.values()].map((t) => t.track.finish()));
    const refined = await this.refinedSpeakers(meeting);
    await meeting.recorder.idle();
    await meeting.emitting;
    if (meeting.timer) clearInterval(meeting.timer);
    // The audio on disk decides the length (a track whose writes failed kept less than it heard).
    const durationSec = Math.max(0, ...[...meeting.tracks.values()].map((t) => (t.offsetSec ?? 0) + t.track.keptSamples / TRACK_RATE));
    const summary: MeetingSummary = {
      meetingId: meeting.id,
      entryId: meeting.recorder.header.id,
      durationSec,
      finals: meeting.finals,
      tracks: [...meeting.tracks.values()].map((t) => t.track.report()),
    };
    if (!meeting.discarded) {
      const entry = await meeting.recorder.close(durationSec).catch((error: unknown) => {
        this.writeFailed(error as Error);
        return null;
      });
      if (entry) this.opts.history.meetingEnded(entry);
      if (entry && refined.size > 0) {
        await this.opts.refineSpeakers?.(entry.id, refined).catch((error: unknown) => this.opts.log.warn('the speakers could not be refined', error));
      }
    }
    for (const t of meeting.tracks.values()) if (t.source.state === 'recording' || t.source.state === 'interrupted') t.source.state = 'stopped';
    meeting.state = 'stopped';
    this.emitState(meeting);
    if (this.meeting === meeting) this.meeting = null;
    this.opts.log.info(`meeting ${meeting.id} stopped: ${durationSec.toFixed(1)} s, ${meeting.finals} finals`);
    return summary;
  }

  /**
   * Each diarized track's stream finished over the whole track: every final's words attributed again from all
   * its frames (live, a word past the last frame took the nearest one). Only the segments that changed.
   */
  private async refinedSpeakers(meeting: Meeting): Promise<Map<number, Word[]>> {
    const changed = new Map<number, Word[]>();
    for (const state of meeting.tracks.values()) {
      if (!state.speakers) continue;
      const frames = await state.speakers.finish();
      if (frames.frames === 0) continue;
      for (const s of state.spoken) {
        const words = s.words.map((w, i) => ({ ...w, speaker: state.speakers!.nameOf(dominantSpeaker(frames, s.trackWords[i]!.start, s.trackWords[i]!.end)) }));
        if (words.some((w, i) => w.speaker !== s.words[i]!.speaker)) changed.set(s.segmentId, words);
      }
    }
    return changed;
  }

  /** The History entry was deleted while recording: everything stops, nothing more is written. */
  private async discard(meeting: Meeting): Promise<void> {
    meeting.discarded = true;
    if (meeting.timer) clearInterval(meeting.timer);
    if (meeting.graceTimer) clearTimeout(meeting.graceTimer);
    await meeting.capture?.stop();
    for (const t of meeting.tracks.values()) {
      t.speakers?.close();
      await t.track.abort();
    }
    await meeting.recorder.abandon();
    meeting.state = 'stopped';
    this.emitState(meeting);
    if (this.meeting === meeting) this.meeting = null;
  }

  /** The meeting's window was closed (not reloaded): the meeting is stopped and kept. */
  async stopOwnedBy(owner: string): Promise<void> {
    const meeting = this.meeting;
    if (meeting && meeting.owner === owner) await this.stop(meeting.id).catch(() => undefined);
  }

  async dispose(): Promise<void> {
    const meeting = this.meeting;
    if (meeting) await this.stop(meeting.id).catch((error: unknown) => this.opts.log.warn('could not stop the meeting at shutdown', error));
  }

  private sources(meeting: Meeting): MeetingSource[] {
    return [...meeting.tracks.values()].map((t) => ({ ...t.source }));
  }

  private emitState(meeting: Meeting): void {
    const level = (name: MeetingTrackName): number => meeting.tracks.get(name)?.track.level ?? 0;
    this.opts.emit('meeting:state', {
      meetingId: meeting.id,
      state: meeting.state,
      elapsedSec: meeting.elapsedSec(),
      levels: { you: level('you'), others: level('others') },
      sources: this.sources(meeting),
    });
  }

  private sourceLost(meeting: Meeting, name: MeetingTrackName, problem: SourceProblem): void {
    const state = meeting.tracks.get(name);
    if (!state || meeting.state !== 'recording') return;
    state.source.state = state.track.samples > 0 ? 'stopped' : 'unavailable';
    state.source.reason = problem.reason;
    state.source.action = problem.action;
    this.opts.log.warn(`meeting ${meeting.id}: ${name}: ${problem.reason}${problem.detail ? ` (${problem.detail})` : ''}`);
    this.opts.notify({ level: 'warning', code: 'MEETING_SOURCE_UNAVAILABLE', message: `${problem.reason} The other track keeps recording.`, action: problem.action });
    this.emitState(meeting);
  }

  private readonly told = new Set<string>();
  private problem(meeting: Meeting, name: MeetingTrackName, code: string, message: string): void {
    const key = `${meeting.id}:${code}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    this.opts.notify({ level: 'warning', code, message: `${SPEAKERS[name]}: ${message}` });
  }

  /**
   * A track's WAV could not be written (a full disk): the track stops where its audio ends — recording on
   * would claim audio that is not there — and the user is told at once, in the header (a notice) and under
   * the track's meter (its source), while the other track records on.
   */
  private audioWriteFailed(meeting: Meeting, name: MeetingTrackName, error: Error): void {
    const state = meeting.tracks.get(name);
    if (!state || state.audioFailed || meeting.discarded) return;
    state.audioFailed = true;
    state.interruption = null;
    const keptSec = state.track.keptSamples / TRACK_RATE;
    const why = describeWriteError(error);
    this.opts.log.error(`meeting ${meeting.id}: ${name}.wav could not be written after ${keptSec.toFixed(2)} s`, error);
    const action = 'Free some disk space, then start a new meeting; what was saved stays in History.';
    if (meeting.state === 'recording') {
      Object.assign(state.source, { state: 'stopped', reason: `This track's audio could not be saved (${why}); it stopped after ${keptSec.toFixed(1)} s.`, action });
    }
    this.opts.notify({
      level: 'error',
      code: 'HISTORY_WRITE_FAILED',
      message: `The meeting's audio (${SPEAKERS[name]}) could not be saved (${why}): that track stopped after ${keptSec.toFixed(1)} s; the meeting keeps what was saved.`,
      action,
    });
    this.emitState(meeting);
  }

  private writeFailed(error: Error): void {
    this.opts.log.error('saving the meeting failed', error);
    this.opts.notify({
      level: 'warning',
      code: 'HISTORY_WRITE_FAILED',
      message: `The meeting's transcript could not be saved (${describeWriteError(error)}). Recording goes on; the text stays on screen.`,
      action: 'Free some disk space.',
    });
  }
}
