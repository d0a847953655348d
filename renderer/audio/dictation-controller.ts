// The dictation controller: ties the microphone, the pre-roll router and the
// session channels together. One instance for the window.
//   Start: open the mic (unless armed) → latch the router → dictation:start
//          → send pre-roll + queued frames → stream.
//   Stop:  flush the worklet's partial frame → dictation:stop (finalizes the
//          open segment) → show the summary's finals.
// No frame between mic open and stop is dropped: until the session exists
// they wait in the router. The singleton with the real microphone is in
// dictation.ts.
import type { HotkeyEvent, SessionStateEvent, Settings } from '../../app/ipc/contract.js';
import { actionFor } from '../errors.js';
import * as actions from '../store/actions.js';
import { api } from '../store/api.js';
import { call } from '../store/commands.js';
import { appStore } from '../store/store.js';
import { meetingStore } from '../meeting/meeting-store.js';
import { CaptureRouter } from './capture-router.js';
import { silentCues, type CuePlayer } from './cues.js';
import { levelFromRms, rms, smoothLevel } from './level.js';
import { MicError, type MicHandle, type MicOptions } from './mic-types.js';

/** 40 ms frames: small enough for prompt partials, large enough to keep message rates low. */
export const FRAME_MS = 40;
const DEFAULT_PRE_ROLL_MS = 500;

const DEFAULT_AUDIO: Settings['audio'] = {
  echoCancellation: false,
  noiseSuppression: false,
  autoGainControl: false,
  inputDeviceId: null,
};

/** Audio the transport could not deliver (web mode: frames dropped while disconnected). */
export type DroppedAudioLookup = (sessionId: string) => { samples: number };

export class DictationController {
  private mic: MicHandle | null = null;
  private opening: Promise<MicHandle | null> | null = null;
  private router: CaptureRouter | null = null;
  private sessionId: string | null = null;
  /** Samples sent to the current session (its next startSample), for dictation:stop. */
  private sentSamples = 0;
  private pressAt: number | null = null;
  private level = 0;
  /** The Dictate view is shown with "keep the microphone open" on: keep it open between sessions. */
  private keepOpen = false;

  /** `openMic`: mic.ts in the app (browser-only); tests pass a stand-in. */
  constructor(
    private readonly openMic: (options: MicOptions) => Promise<MicHandle>,
    /** Start/stop tones (settings.desktop.sounds); tests pass a recorder. */
    private readonly cues: CuePlayer = silentCues,
  ) {}

  /** Toggles in order: a press during a start or a stop acts once that ends, none is lost. */
  private toggles: Promise<void> = Promise.resolve();

  /**
   * Start when idle, stop when live (the shortcut, the hotkey and the main button). Presses are taken in
   * order: five quick presses are start, stop, start, stop, start, whatever each one waits for.
   */
  toggle(press?: { at: number; source: 'hotkey' | 'key' | 'button' }): Promise<void> {
    const next = this.toggles.then(async () => {
      const phase = appStore.getState().session.phase;
      if (phase === 'idle') await this.start(press);
      else if (phase === 'live') await this.stop();
    });
    this.toggles = next.catch(() => undefined);
    return next;
  }

  /**
   * The global hotkey's decision (main's state machine) or this window's hold-to-talk key: taken in order
   * with the toggles, so a release that comes while the start is in flight stops the session once it exists.
   * `at` (epoch ms of the key-down) is where the latency panel measures from.
   */
  hotkey(event: Pick<HotkeyEvent, 'action' | 'at'>, source: 'hotkey' | 'key' = 'hotkey'): Promise<void> {
    const next = this.toggles.then(async () => {
      const phase = appStore.getState().session.phase;
      if (event.action === 'start' || (event.action === 'toggle' && phase === 'idle')) {
        if (phase === 'idle') await this.start({ at: event.at, source });
      } else if (event.action === 'stop' || event.action === 'toggle') {
        if (phase === 'live') await this.stop();
      } else await this.cancel();
    });
    this.toggles = next.catch(() => undefined);
    return next;
  }

  /** Keeps the mic open (pre-roll filling) while the Dictate view is shown and the preference is on. */
  async arm(): Promise<void> {
    this.keepOpen = true;
    if (this.mic || this.opening) return;
    await this.ensureMic();
  }

  /** The view went away or the preference was turned off: release the mic once no session needs it. */
  async disarm(): Promise<void> {
    this.keepOpen = false;
    if (appStore.getState().session.phase !== 'idle') return;
    await this.closeMic();
  }

  async start(press: { at: number; source: 'hotkey' | 'key' | 'button' } = { at: Date.now(), source: 'button' }): Promise<void> {
    if (appStore.getState().session.phase !== 'idle') return;
    if (meetingStore.getState().phase !== 'idle') {
      // The meeting records this microphone and transcribes it already (main refuses it too: MEETING_RECORDING).
      actions.notify({
        level: 'info',
        code: 'MEETING_RECORDING',
        message: 'Dictation did not start: a meeting is recording this microphone, and its transcript already has what you say.',
        action: actionFor('MEETING_RECORDING'),
      });
      return;
    }
    actions.startPressed(press.at, press.source);
    const wasOpen = this.mic !== null;
    this.pressAt = performance.now();
    actions.pressLatencyReset();
    // Armed: the mic was already live when Start was pressed.
    if (wasOpen) actions.firstFrameAfterPress(0);
    actions.sessionPhase('opening');
    const mic = await this.ensureMic();
    const router = this.router;
    if (!mic || !router) {
      actions.sessionPhase('idle');
      return;
    }
    const preRollSamples = router.latch();
    actions.sessionPhase('starting');
    const result = await api().invoke('dictation:start', {
      sampleRate: mic.sampleRate,
      preRollMs: Math.round((preRollSamples / mic.sampleRate) * 1000),
    });
    if (!result.ok) {
      actions.notify({
        level: 'error',
        code: result.error.code,
        message: `Dictation could not start: ${result.error.message}`,
        ...(actionFor(result.error.code) ? { action: actionFor(result.error.code) } : {}),
      });
      await this.endLocal();
      return;
    }
    const { sessionId } = result.value;
    if (this.router !== router) {
      // The microphone closed (or was reopened) while main created the session: no audio will ever reach
      // it, and a session nobody stops would stay open on the server. Discard it.
      await call('dictation:cancel', 'Discarding the session of a closed microphone', { sessionId });
      this.pressAt = null;
      if (appStore.getState().session.phase !== 'idle') actions.sessionPhase('idle');
      return;
    }
    this.sessionId = sessionId;
    actions.sessionBegan(sessionId);
    // Capture runs from here (and the pre-roll from before): the user may speak.
    if (this.soundsOn()) this.cues('start');
    const parakeet = api();
    this.sentSamples = 0;
    router.attach((frame, startSample) => {
      parakeet.sendAudio(sessionId, frame, startSample);
      this.sentSamples = Math.max(this.sentSamples, startSample + frame.length);
    });
  }

  async stop(): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId || appStore.getState().session.phase !== 'live') return;
    actions.sessionPhase('stopping');
    if (this.soundsOn()) this.cues('stop');
    // Send the tail that is still inside the worklet's partial frame.
    await this.mic?.flush();
    // Frames travel apart from invokes: tell main how much audio to wait for.
    const summary = await call('dictation:stop', 'Stopping dictation', { sessionId, sentSamples: this.sentSamples });
    this.sessionId = null;
    actions.sessionEnded(summary);
    await this.endLocal();
  }

  async cancel(): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    this.sessionId = null;
    await call('dictation:cancel', 'Cancelling dictation', { sessionId });
    actions.sessionEnded(null);
    // Cancelled: the tentative text of the discarded session goes too (finals already out stay).
    actions.dropPartial(sessionId);
    await this.endLocal();
  }

  /** The session manager gave up on the session (it says why in the notice). */
  handleServerState(ev: SessionStateEvent): void {
    if (ev.sessionId !== this.sessionId || ev.state !== 'failed') return;
    this.sessionId = null;
    actions.sessionEnded(null);
    void this.endLocal();
  }

  /**
   * Web mode: the bridge reconnected. The server finalizes a dropped client's
   * sessions, so a session that was live is over: fetch its summary (the finals
   * spoken before the drop), end it here and say so, with how much audio
   * captured meanwhile could not be sent (`dropped`: the bridge client's count).
   */
  async handleReconnect(dropped: DroppedAudioLookup = () => ({ samples: 0 })): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    this.sessionId = null;
    // The server takes no more audio for this session (this is a new client): stop streaming it now.
    this.router?.detach();
    const lostSeconds = dropped(sessionId).samples / (this.mic?.sampleRate ?? 16_000);
    const result = await api().invoke('dictation:summary', { sessionId });
    const lost = lostSeconds > 0
      ? ` The ${lostSeconds.toFixed(1)} s of audio captured while disconnected could not be sent and is not transcribed.`
      : '';
    actions.notify({
      level: 'warning',
      code: 'SESSION_INTERRUPTED',
      message: (result.ok
        ? 'The connection dropped during dictation, so the session was stopped. Everything said until then is kept below.'
        : 'The connection dropped during dictation, so the session was stopped.') + lost,
      action: 'Press Start to continue dictating.',
    });
    actions.sessionEnded(result.ok ? result.value : null);
    await this.endLocal();
  }

  // ------------------------------------------------------------ internals

  private async endLocal(): Promise<void> {
    this.router?.detach();
    this.pressAt = null;
    if (!this.keepOpen) await this.closeMic();
    if (appStore.getState().session.phase !== 'idle') actions.sessionPhase('idle');
  }

  private soundsOn(): boolean {
    return appStore.getState().settings.values?.desktop?.sounds === true;
  }

  private settings(): { audio: Settings['audio']; preRollMs: number } {
    const values = appStore.getState().settings.values;
    return { audio: values?.audio ?? DEFAULT_AUDIO, preRollMs: values?.dictation.preRollMs ?? DEFAULT_PRE_ROLL_MS };
  }

  private async ensureMic(): Promise<MicHandle | null> {
    if (this.mic) return this.mic;
    if (this.opening) return this.opening;
    this.opening = this.open().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  private async open(): Promise<MicHandle | null> {
    const { audio, preRollMs } = this.settings();
    const router = new CaptureRouter(Math.max(1, (preRollMs * 16_000) / 1000));
    this.router = router;
    this.level = 0;
    try {
      const mic = await this.openMic({
        audio,
        frameMs: FRAME_MS,
        onFrame: (frame) => this.onFrame(router, frame),
        onEnded: () => void this.micEnded(),
        onFallback: (message) => actions.notify({ level: 'warning', code: 'MIC_FALLBACK', message }),
      });
      this.mic = mic;
      actions.micOpened(mic.label, null);
      actions.dismissNoticeKey('mic');
      return mic;
    } catch (error) {
      this.router = null;
      const code = error instanceof MicError ? error.code : 'MIC_FAILED';
      const message = error instanceof Error ? error.message : String(error);
      actions.notify({ level: 'error', code, message, ...(actionFor(code) ? { action: actionFor(code) } : {}) });
      return null;
    }
  }

  private onFrame(router: CaptureRouter, frame: Float32Array): void {
    if (router !== this.router) return;
    if (this.pressAt !== null && appStore.getState().session.pressToMicMs === null) {
      actions.firstFrameAfterPress(Math.round(performance.now() - this.pressAt));
    }
    router.push(frame);
    this.level = smoothLevel(this.level, levelFromRms(rms(frame)));
    actions.inputLevel(Math.round(this.level * 100) / 100);
  }

  private async micEnded(): Promise<void> {
    actions.notify({ level: 'error', code: 'MIC_ENDED', message: 'The microphone stopped delivering audio.', action: actionFor('MIC_ENDED') });
    // Finalize what was captured, then release the dead device.
    if (this.sessionId) await this.stop();
    await this.closeMic();
  }

  private async closeMic(): Promise<void> {
    const mic = this.mic;
    this.mic = null;
    this.router = null;
    this.level = 0;
    if (mic) await mic.close();
    actions.micClosed();
  }
}
