// Meeting mode: the microphone ("You", frames from the renderer on a stream id
// like a dictation's) and the system audio ("Others", captured in main by
// system-audio.ts) recorded at once, each a MeetingTrack journaled to a WAV in
// the History entry's audio folder and transcribed as it goes; finals carry
// their track's speaker label and meeting times, so the two tracks interleave
// by time. One meeting at a time (there is one system audio). A source that
// cannot be captured is named with what to do, and the other keeps recording.
// Electron-free; the adapters route the microphone stream here (isMicStream).
import fs from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import type {
  DictationSettings, HistoryEntrySummary, MeetingFinal, MeetingInfo, MeetingMarker, MeetingSource, MeetingStartOptions, MeetingStateEvent,
  MeetingSummary, MeetingTrackName, Notice,
} from '../../ipc/contract.js';
import type { DecoderName } from '../../../native/index.js';
import { CodedError } from '../engine/protocol.js';
import { FILE_WINDOW_SEC } from '../engine/engine-host.js';
import { fsyncDir } from '../util/atomic-file.js';
import type { EntryRecord } from '../history/records.js';
import type { MeetingEntryOwner } from '../history/history-service.js';
import type { Logger } from '../log.js';
import type { Emit, SessionDecoder } from '../sessions/session.js';
import { MeetingRecorder } from './meeting-recorder.js';
import { MeetingTrack, TRACK_RATE, type TrackFinal } from './meeting-track.js';
import type { SourceProblem, SystemAudioCapture, SystemAudioStarter } from './system-audio.js';
import { WavJournalWriter } from './wav-journal.js';

/**
 * Microphone stream ids of meetings ("s<n>") sit far above the dictation sessions' numbers and below the web
 * protocol's upload flag (bit 30, 0x40000000): a meeting stream is an ordinary audio stream on the wire.
 */
export const MEETING_STREAM_BASE = 1_000_000_000;
const SPEAKERS: Record<MeetingTrackName, string> = { you: 'You', others: 'Others' };
const STATE_INTERVAL_MS = 100;
const DRAIN_TIMEOUT_MS = 1000;

export interface MeetingHistory {
  newMeetingEntry(): { header: EntryRecord; file: string; audioDir: string } | null;
  meetingStarted(summary: HistoryEntrySummary, owner: MeetingEntryOwner): void;
  meetingEnded(summary: HistoryEntrySummary): void;
}

export interface MeetingServiceOptions {
  history: MeetingHistory;
  engine: SessionDecoder;
  emit: Emit;
  notify: (notice: Notice) => void;
  log: Logger;
  settings: () => { dictation: DictationSettings; decoder: DecoderName | 'auto' };
  /** How the system audio is captured in main; null where it is not (Windows/macOS: the renderer's loopback). */
  systemAudio: SystemAudioStarter | null;
  /** WAV sync interval (ms, default 1000). */
  syncIntervalMs?: number;
}

interface TrackState {
  track: MeetingTrack;
  source: MeetingSource;
  /** Meeting seconds of the track's sample 0, known at its first frame. */
  offsetSec: number | null;
  file: string;
}

class Meeting implements MeetingEntryOwner {
  readonly tracks = new Map<MeetingTrackName, TrackState>();
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
    readonly owner: string,
    readonly micStreamId: string | null,
    readonly recorder: MeetingRecorder,
    readonly onDiscard: (meeting: Meeting) => Promise<void>,
  ) {}

  elapsedSec(): number {
    return (performance.now() - this.t0) / 1000;
  }

  discard(): Promise<void> {
    return this.onDiscard(this);
  }
}

export class MeetingService {
  private meeting: Meeting | null = null;
  private nextId = 1;

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
    const n = this.nextId++;
    const id = `m${n}`;
    await fs.mkdir(entry.audioDir, { recursive: true });
    const recorder = await MeetingRecorder.create(entry.file, entry.header, (error) => this.writeFailed(error));
    const meeting = new Meeting(id, owner, micRate ? `s${MEETING_STREAM_BASE + n}` : null, recorder, (m) => this.discard(m));
    this.meeting = meeting;
    try {
      const { dictation, decoder } = this.opts.settings();
      const segmenter = {
        pauseMs: dictation.pauseMs,
        maxSegmentSec: FILE_WINDOW_SEC,
        preRollMs: dictation.preRollMs,
        thresholdDb: dictation.vadThresholdDb,
      };
      const addTrack = async (name: MeetingTrackName, rate: number, source: MeetingSource): Promise<void> => {
        const file = `${name}.wav`;
        const wav = await WavJournalWriter.create(path.join(entry.audioDir, file), { sampleRate: TRACK_RATE, syncIntervalMs: this.opts.syncIntervalMs });
        const track = new MeetingTrack({
          track: name,
          inputRate: rate,
          wav,
          engine: this.opts.engine,
          decoder: decoder === 'auto' ? undefined : decoder,
          segmenter,
          onFinal: (final) => this.onFinal(meeting, final),
          onProblem: (code, message) => this.problem(meeting, name, code, message),
          log: this.opts.log.child(`${id}-${name}`),
        });
        meeting.tracks.set(name, { track, source, offsetSec: null, file });
      };
      const mic: MeetingSource = micRate
        ? { track: 'you', speaker: SPEAKERS.you, state: 'recording', reason: null, action: null }
        : { track: 'you', speaker: SPEAKERS.you, state: 'unavailable', reason: 'The meeting was started without the microphone.', action: 'Start a new meeting with the microphone on.' };
      await addTrack('you', micRate || TRACK_RATE, mic);
      const others: MeetingSource = { track: 'others', speaker: SPEAKERS.others, state: 'recording', reason: null, action: null };
      await addTrack('others', TRACK_RATE, others);
      await fsyncDir(entry.audioDir);
      if (options.systemAudio === false) {
        Object.assign(others, { state: 'unavailable', reason: 'The meeting was started without the system audio.', action: 'Start a new meeting with the system audio on.' });
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
      meeting.timer = setInterval(() => this.emitState(meeting), STATE_INTERVAL_MS);
      meeting.timer.unref();
      this.opts.log.info(`meeting ${id} started (entry ${entry.header.id}${meeting.capture ? `, system audio: ${meeting.capture.description}` : ''})`);
      this.emitState(meeting);
      return { meetingId: id, entryId: entry.header.id, micStreamId: meeting.micStreamId, startedAt: meeting.startedAt.toISOString(), sources: this.sources(meeting) };
    } catch (error) {
      this.meeting = null;
      for (const t of meeting.tracks.values()) await t.track.abort();
      await recorder.close(0).catch(() => undefined);
      throw error;
    }
  }

  /** A microphone frame from the client that started the meeting. */
  pushMic(streamId: string, frame: Float32Array, owner: string, startSample?: number): boolean {
    const meeting = this.meeting;
    if (!meeting || meeting.micStreamId !== streamId || meeting.owner !== owner || meeting.state !== 'recording') return false;
    this.push(meeting, 'you', frame, startSample);
    return true;
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
    const event: MeetingFinal = {
      meetingId: meeting.id,
      track: final.track,
      speaker: state.source.speaker,
      segmentId: meeting.finals++,
      start: offset + final.startSample / TRACK_RATE,
      end: offset + final.endSample / TRACK_RATE,
      text: final.text,
      words: final.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset })),
      devicesRan: final.devicesRan,
    };
    if (meeting.discarded) return;
    // Shown once it is on disk (one fdatasync, milliseconds): what the UI showed survives a crash.
    const written = meeting.recorder.add({
      type: 'segment', sessionId: meeting.id, segmentId: event.segmentId, start: event.start, end: event.end,
      text: event.text, devicesRan: event.devicesRan, words: event.words, speaker: event.speaker,
    });
    meeting.emitting = meeting.emitting.then(() => written).then(() => {
      if (!meeting.discarded) this.opts.emit('meeting:transcript', event);
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
  stop(meetingId: string, sentSamples?: number): Promise<MeetingSummary> {
    const meeting = this.require(meetingId);
    meeting.stopping ??= this.finish(meeting, sentSamples);
    return meeting.stopping;
  }

  private async finish(meeting: Meeting, sentSamples?: number): Promise<MeetingSummary> {
    const you = meeting.tracks.get('you')!;
    if (sentSamples !== undefined) {
      const deadline = performance.now() + DRAIN_TIMEOUT_MS;
      while (you.track.receivedSamples < sentSamples && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    }
    meeting.state = 'finalizing';
    this.emitState(meeting);
    await meeting.capture?.stop();
    await Promise.all([...meeting.tracks.values()].map((t) => t.track.finish()));
    await meeting.emitting;
    if (meeting.timer) clearInterval(meeting.timer);
    const durationSec = Math.max(0, ...[...meeting.tracks.values()].map((t) => (t.offsetSec ?? 0) + t.track.samples / TRACK_RATE));
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
    }
    for (const t of meeting.tracks.values()) if (t.source.state === 'recording') t.source.state = 'stopped';
    meeting.state = 'stopped';
    this.emitState(meeting);
    if (this.meeting === meeting) this.meeting = null;
    this.opts.log.info(`meeting ${meeting.id} stopped: ${durationSec.toFixed(1)} s, ${meeting.finals} finals`);
    return summary;
  }

  /** The History entry was deleted while recording: everything stops, nothing more is written. */
  private async discard(meeting: Meeting): Promise<void> {
    meeting.discarded = true;
    if (meeting.timer) clearInterval(meeting.timer);
    await meeting.capture?.stop();
    for (const t of meeting.tracks.values()) await t.track.abort();
    await meeting.recorder.abandon();
    meeting.state = 'stopped';
    this.emitState(meeting);
    if (this.meeting === meeting) this.meeting = null;
  }

  /** The client that started the meeting went away (window closed, tab gone): the meeting is stopped and kept. */
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
    this.opts.log.warn(`meeting ${meeting.id}: ${name}: ${problem.reason}`);
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

  private writeFailed(error: Error): void {
    this.opts.log.error('saving the meeting failed', error);
    this.opts.notify({
      level: 'warning',
      code: 'HISTORY_WRITE_FAILED',
      message: `The meeting's transcript could not be saved (${error.message}). Recording goes on; the text stays on screen.`,
      action: 'Free some disk space.',
    });
  }
}
