// Starts and stops a meeting from the renderer: meeting:start in main (which
// records the system audio itself), then the microphone through the capture
// worklet, its frames sent on the meeting's stream id with their sample
// positions, as dictation sends them; meeting:stop with the count sent, so
// main waits for frames still in flight. A microphone that cannot open is
// named with what to do, and the meeting goes on with the system audio.
// A page that loads (or a web page that reconnects) while a meeting records
// takes it over (resume): meeting:current, meeting:attach for new stream ids,
// the transcript so far from the meeting's History entry, the microphone
// (re)opened on the new stream; main keeps the time in between as silence.
import type { MeetingInfo, ParakeetApi } from '../../app/ipc/contract.js';
import type { MicHandle, MicOptions } from '../audio/mic-types.js';
import type { HistoryEntry, MeetingCurrent } from '../../app/ipc/contract.js';
import * as actions from '../store/actions.js';
import { MEETING_NOTICE_PREFIX } from '../store/actions.js';
import { applyFinal, applyPartial, applyState, markerAdded, meetingStore, resumed, started, stopped, withEntry } from './meeting-store.js';

const FRAME_MS = 40;

export interface MeetingControllerDeps {
  api: () => ParakeetApi;
  openMic: (opts: MicOptions) => Promise<MicHandle>;
  /** The system audio where the page captures it (Windows/macOS desktop app: getDisplayMedia loopback). */
  openLoopback?: (opts: Omit<MicOptions, 'audio'>) => Promise<MicHandle>;
  audio: () => MicOptions['audio'];
}

export class MeetingController {
  private mic: MicHandle | null = null;
  private sent = 0;
  /** The stream the microphone's frames go on (a new one after a take-over). */
  private stream: string | null = null;
  private resuming: Promise<void> | null = null;
  /** The page's loopback capture of the system audio (othersStreamId), its stream and count. */
  private loop: MicHandle | null = null;
  private othersStream: string | null = null;
  private othersSent = 0;

  constructor(private readonly deps: MeetingControllerDeps) {}

  /** bridge.ts: the meeting events. */
  subscribe(api: ParakeetApi): void {
    // The meeting's banners (a source lost, dictation refused) belong to it: they go when it ends.
    meetingStore.subscribe((now, before) => {
      if (before.phase !== 'idle' && now.phase === 'idle') actions.dismissNoticeKeyPrefix(MEETING_NOTICE_PREFIX);
    });
    api.on('meeting:state', (ev) => meetingStore.setState((s) => applyState(s, ev)));
    api.on('meeting:transcript', (f) => meetingStore.setState((s) => applyFinal(s, f)));
    api.on('meeting:partial', (p) => meetingStore.setState((s) => applyPartial(s, p)));
    api.on('meeting:marker', (m) => meetingStore.setState((s) => (m.meetingId === s.info?.meetingId ? markerAdded(s, { at: m.at, text: m.text, kind: m.kind }) : s)));
    // A file of the meeting could not be written (a full disk): said where the meeting is shown, not only in the header.
    api.on('notice', (n) => {
      if (n.code === 'HISTORY_WRITE_FAILED') meetingStore.setState((s) => (s.phase === 'recording' ? { ...s, error: `${n.message}${n.action ? ` ${n.action}` : ''}` } : s));
    });
  }

  /**
   * At load, and when a web page's connection comes back: a meeting that records without a page (this one
   * reloaded, or its socket dropped) is taken over and shown again. Nothing to do when none runs.
   */
  resume(): Promise<void> {
    this.resuming ??= this.takeOver().finally(() => {
      this.resuming = null;
    });
    return this.resuming;
  }

  private async takeOver(): Promise<void> {
    const phase = meetingStore.getState().phase;
    if (phase === 'starting' || phase === 'stopping') return;
    const current = await this.deps.api().invoke('meeting:current');
    if (!current.ok || !current.value) {
      // This page showed a meeting that ended meanwhile (the grace time ran out): it is in History.
      if (phase === 'recording' && current.ok) await this.closeMic().then(() => meetingStore.setState((s) => stopped(s, null)));
      return;
    }
    const now: MeetingCurrent = current.value;
    if (!now.micDetached || now.state !== 'recording') return;
    const attached = await this.deps.api().invoke('meeting:attach', { meetingId: now.info.meetingId });
    if (!attached.ok) {
      meetingStore.setState({ error: attached.error.message });
      return;
    }
    const info = attached.value;
    if (phase === 'recording' && meetingStore.getState().info?.meetingId === info.meetingId && this.mic) {
      // Same page, new connection: the open microphone goes on, on the new stream, numbered from 0.
      this.stream = info.micStreamId;
      this.sent = 0;
      if (this.loop) {
        this.othersStream = info.othersStreamId;
        this.othersSent = 0;
      }
      meetingStore.setState((s) => ({ ...s, info, sources: info.sources }));
      if (!this.loop) await this.openLoopback(info);
      return;
    }
    meetingStore.setState(resumed(now, info));
    const entry = await this.deps.api().invoke('history:get', { id: info.entryId });
    if (entry.ok) meetingStore.setState((s) => withEntry(s, entry.value as HistoryEntry));
    await Promise.all([this.openMic(info), this.openLoopback(info)]);
  }

  private async closeMic(): Promise<void> {
    const mic = this.mic;
    const loop = this.loop;
    this.mic = null;
    this.loop = null;
    for (const handle of [mic, loop]) {
      if (!handle) continue;
      await handle.flush().catch(() => undefined);
      await handle.close().catch(() => undefined);
    }
    this.stream = null;
    this.othersStream = null;
  }

  private async openLoopback(info: MeetingInfo): Promise<void> {
    if (!info.othersStreamId || !this.deps.openLoopback) return;
    this.othersStream = info.othersStreamId;
    this.othersSent = 0;
    const lost = (reason: string): void => {
      this.loop = null;
      meetingStore.setState((s) => ({
        ...s,
        sources: s.sources.map((src) => (src.track === 'others' ? { ...src, state: 'unavailable', reason: `${reason} The microphone keeps recording.`, action: 'Start a new meeting once it is fixed.' } : src)),
      }));
    };
    try {
      this.loop = await this.deps.openLoopback({
        frameMs: FRAME_MS,
        onFrame: (frame) => {
          if (!this.othersStream) return;
          this.deps.api().sendAudio(this.othersStream, frame, this.othersSent);
          this.othersSent += frame.length;
        },
        // macOS ends the track without an error when the "System Audio Recording" permission is missing.
        onEnded: () => lost('The system audio capture ended (on macOS: allow Parakeet in System Settings › Privacy & Security › Screen & System Audio Recording).'),
      });
    } catch (error) {
      lost(error instanceof Error ? error.message : String(error));
    }
  }

  async start(): Promise<void> {
    if (meetingStore.getState().phase !== 'idle') return;
    meetingStore.setState({ phase: 'starting', error: null });
    const result = await this.deps.api().invoke('meeting:start', { micSampleRate: 16000 });
    if (!result.ok) {
      meetingStore.setState((s) => stopped(s, null, result.error.message));
      return;
    }
    const info = result.value;
    meetingStore.setState(started(info));
    await Promise.all([this.openMic(info), this.openLoopback(info)]);
  }

  private async openMic(info: MeetingInfo): Promise<void> {
    if (!info.micStreamId) return;
    this.stream = info.micStreamId;
    this.sent = 0;
    try {
      this.mic = await this.deps.openMic({
        audio: this.deps.audio(),
        frameMs: FRAME_MS,
        onFrame: (frame) => {
          if (!this.stream) return;
          this.deps.api().sendAudio(this.stream, frame, this.sent);
          this.sent += frame.length;
        },
        onEnded: () => this.micLost('The microphone stopped (unplugged, or its permission was revoked).'),
      });
    } catch (error) {
      this.micLost(`The microphone could not be opened: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private micLost(reason: string): void {
    this.mic = null;
    meetingStore.setState((s) => ({
      ...s,
      sources: s.sources.map((src) => (src.track === 'you'
        ? { ...src, state: 'unavailable', reason: `${reason} The system audio keeps recording.`, action: 'Check the microphone and its permission, then start a new meeting.' }
        : src)),
    }));
  }

  async addMarker(text: string): Promise<void> {
    const info = meetingStore.getState().info;
    if (!info || !text.trim()) return;
    const result = await this.deps.api().invoke('meeting:marker', { meetingId: info.meetingId, text });
    if (result.ok) meetingStore.setState((s) => markerAdded(s, result.value));
    else meetingStore.setState({ error: result.error.message });
  }

  async stop(): Promise<void> {
    const state = meetingStore.getState();
    if (state.phase !== 'recording' || !state.info) return;
    meetingStore.setState({ phase: 'stopping' });
    const hadLoopback = this.othersStream !== null;
    // Closed first: their flush sends the last frames, which the counts below include.
    await this.closeMic();
    const othersSent = hadLoopback ? this.othersSent : undefined;
    const result = await this.deps.api().invoke('meeting:stop', {
      meetingId: state.info.meetingId, sentSamples: this.sent, ...(othersSent !== undefined ? { othersSentSamples: othersSent } : {}),
    });
    meetingStore.setState((s) => (result.ok ? stopped(s, result.value) : stopped(s, null, result.error.message)));
  }
}
