// Starts and stops a meeting from the renderer: meeting:start in main (which
// records the system audio itself), then the microphone through the capture
// worklet, its frames sent on the meeting's stream id with their sample
// positions, as dictation sends them; meeting:stop with the count sent, so
// main waits for frames still in flight. A microphone that cannot open is
// named with what to do, and the meeting goes on with the system audio.
import type { MeetingInfo, ParakeetApi } from '../../app/ipc/contract.js';
import type { MicHandle, MicOptions } from '../audio/mic-types.js';
import { applyFinal, applyState, markerAdded, meetingStore, started, stopped } from './meeting-store.js';

const FRAME_MS = 40;

export interface MeetingControllerDeps {
  api: () => ParakeetApi;
  openMic: (opts: MicOptions) => Promise<MicHandle>;
  audio: () => MicOptions['audio'];
}

export class MeetingController {
  private mic: MicHandle | null = null;
  private sent = 0;

  constructor(private readonly deps: MeetingControllerDeps) {}

  /** bridge.ts: the meeting events. */
  subscribe(api: ParakeetApi): void {
    api.on('meeting:state', (ev) => meetingStore.setState((s) => applyState(s, ev)));
    api.on('meeting:transcript', (f) => meetingStore.setState((s) => applyFinal(s, f)));
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
    await this.openMic(info);
  }

  private async openMic(info: MeetingInfo): Promise<void> {
    if (!info.micStreamId) return;
    const stream = info.micStreamId;
    this.sent = 0;
    try {
      this.mic = await this.deps.openMic({
        audio: this.deps.audio(),
        frameMs: FRAME_MS,
        onFrame: (frame) => {
          this.deps.api().sendAudio(stream, frame, this.sent);
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
    const mic = this.mic;
    this.mic = null;
    if (mic) {
      await mic.flush().catch(() => undefined);
      await mic.close().catch(() => undefined);
    }
    const result = await this.deps.api().invoke('meeting:stop', { meetingId: state.info.meetingId, sentSamples: this.sent });
    meetingStore.setState((s) => (result.ok ? stopped(s, result.value) : stopped(s, null, result.error.message)));
  }
}
