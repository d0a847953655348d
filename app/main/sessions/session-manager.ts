// Dictation sessions by id ("s<n>", whose number is also the web bridge's
// audio stream number). Each session belongs to the client that started it:
// only that client's audio, stop and cancel are accepted (to anyone else the
// session does not exist), and when the client goes away its sessions are
// finalized (not discarded: the text spoken so far is kept). Summaries stay
// readable by any client: a reconnecting web page has a new client id.
import { tmpdir } from 'node:os';
import path from 'node:path';
import type {
  DictationStartOptions, EventMap, EventName, SessionInfo, SessionSummary, StreamingSettings, TranscriptEvent,
} from '../../ipc/contract.js';
import type { EngineHost } from '../engine/engine-host.js';
import { CodedError } from '../../../types/errors.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import type { SettingsStore } from '../settings.js';
import { compileTransform } from '../../shared/text-transform.js';
import type { StreamDecoder } from './segment-stream.js';
import { DictationSession, type SessionDecoder, type SessionOptions as DictationSessionOptions } from './session.js';
import { streamOptionsFor } from './stream-options.js';

/**
 * Follows sessions from start to end (the history records them). Called synchronously, right after the
 * bus got the same event; it must not throw and must not block (it queues its own work).
 */
export interface SessionObserver {
  sessionStarted(sessionId: string): void;
  /** Every final, in order, as it is emitted. */
  sessionFinal(event: TranscriptEvent): void;
  /** Stopped (`audioSeconds` known), cancelled, aborted at shutdown or failed (null). Called once or more. */
  sessionEnded(sessionId: string, audioSeconds: number | null): void;
}

/** What the manager needs from the engine (the EngineHost; unit tests pass a stand-in). */
export type SessionEngine = SessionDecoder & Pick<EngineHost, 'on' | 'loadedModel'> & Partial<Pick<EngineHost, 'wake' | 'vadStream'>>;

export interface SessionManagerOptions {
  engine: SessionEngine;
  bus: EventBus;
  settings: SettingsStore;
  log: Logger;
  /** Where long sessions spill audio (the services use <userData>/sessions; default: the OS temp folder). */
  spillDir?: string;
  /** Keep each session's audio after stop (tests). */
  retainAudio?: boolean;
  /** SessionOptions.realTimeSlackSec of every session. */
  realTimeSlackSec?: number;
  /** The decoder sessions use (default: the engine host). Tests may wrap it. */
  decoder?: SessionDecoder;
  /** The engine's streams, used when the resident model is a streaming model (the engine host). */
  streamDecoder?: StreamDecoder;
  observer?: SessionObserver;
}

function isFinal<E extends EventName>(event: E, data: EventMap[E]): data is EventMap['dictation:transcript'] & EventMap[E] {
  return event === 'dictation:transcript' && (data as TranscriptEvent).kind === 'final';
}

const RECENT_SUMMARIES = 16;

export class SessionManager {
  private readonly sessions = new Map<string, DictationSession>();
  private nextNumber = 1;
  private readonly finished = new Map<string, DictationSession>();
  /** Summaries of the last sessions, for a client that reconnects after its session was finalized. */
  private readonly recent = new Map<string, SessionSummary>();

  constructor(private readonly opts: SessionManagerOptions) {
    // Each running session is told of a crash and of the restart with the host's own notice (one text,
    // engine/engine-notices.ts): a client that follows only its session still learns why text is late.
    opts.engine.on('notice', ({ code, message }) => {
      if (code !== 'ENGINE_CRASHED' && code !== 'ENGINE_RESTARTED') return;
      for (const session of this.sessions.values()) session.notify({ code, message });
    });
  }

  start(options: DictationStartOptions, owner: string): SessionInfo {
    if (!this.opts.engine.loadedModel) {
      throw new CodedError('NO_MODEL', 'No model is loaded. Download or import a model in Models, then start dictation again.');
    }
    const settings = this.opts.settings.get();
    const id = `s${this.nextNumber++}`;
    const session = new DictationSession({
      id,
      owner,
      sampleRate: options.sampleRate,
      dictation: settings.dictation,
      decoder: settings.decoder,
      vocabulary: settings.text.vocabulary,
      engine: this.opts.decoder ?? this.opts.engine,
      emit: (event, data) => {
        this.opts.bus.emit(event, data);
        if (isFinal(event, data)) this.observe((o) => o.sessionFinal(data));
      },
      log: this.opts.log,
      spillDir: this.opts.spillDir ?? path.join(tmpdir(), 'parakeet-sessions'),
      retainAudio: this.opts.retainAudio,
      realTimeSlackSec: this.opts.realTimeSlackSec,
      transform: compileTransform(settings.text),
      stream: this.streamFor(settings.streaming),
      // The trained VAD when the engine runs one and the settings want it; else the energy VAD.
      vad: settings.dictation.vadModel === 'silero' ? this.opts.engine.vadStream?.() ?? null : null,
      // A stream lost mid-session (an engine restart, another Silero file loaded): a new one, if Silero is still wanted.
      reopenVad: () => (this.opts.settings.get().dictation.vadModel === 'silero' ? this.opts.engine.vadStream?.() ?? null : null),
    });
    this.sessions.set(id, session);
    // A model unloaded for idleness starts reloading now, while the user starts speaking; the session keeps
    // every frame meanwhile and its first decodes wait in the engine's lane behind the load.
    this.opts.engine.wake?.();
    this.observe((o) => o.sessionStarted(id));
    this.opts.log.info(`session ${id} started for ${owner} (${options.sampleRate} Hz)`);
    return { sessionId: id, sampleRate: options.sampleRate };
  }

  /**
   * A streaming model's live path: its stream options from the settings (a preset or language the model lacks
   * falls back to the model's default, and says so in the log). Offline models: none (segments re-decode).
   */
  private streamFor(streaming: StreamingSettings): DictationSessionOptions['stream'] {
    const model = this.opts.engine.loadedModel;
    const decoder = this.opts.streamDecoder;
    if (!model?.streaming || !decoder) return undefined;
    return { decoder, options: streamOptionsFor(model, streaming, (m) => this.opts.log.warn(m)) };
  }

  /** The observer is a bystander: whatever it does wrong, the session goes on. */
  private observe(call: (observer: SessionObserver) => void): void {
    if (!this.opts.observer) return;
    try {
      call(this.opts.observer);
    } catch (error) {
      this.opts.log.error('a session observer threw', error);
    }
  }

  /** Sessions started and not yet stopped or cancelled. */
  get running(): number {
    return this.sessions.size;
  }

  get(sessionId: string): DictationSession | undefined {
    return this.sessions.get(sessionId) ?? this.finished.get(sessionId);
  }

  /** Audio for a session; frames from anyone but its owner, or after stop, are refused (false). */
  pushAudio(sessionId: string, frame: Float32Array, owner: string, startSample?: number): boolean {
    const session = this.sessions.get(sessionId);
    if (!session || session.owner !== owner) return false;
    return session.pushAudio(frame, startSample);
  }

  /** The running session `sessionId` if `owner` started it; another client's session answers like a missing one. */
  private require(sessionId: string, owner: string): DictationSession {
    const session = this.sessions.get(sessionId);
    if (!session || session.owner !== owner) throw new CodedError('SESSION_NOT_FOUND', `There is no running dictation session ${sessionId}.`);
    return session;
  }

  async stop(sessionId: string, owner: string, sentSamples?: number): Promise<SessionSummary> {
    const session = this.require(sessionId, owner);
    let audioSeconds: number | null = null;
    try {
      const summary = await session.stop(sentSamples);
      audioSeconds = summary.audioSeconds;
      this.recent.set(sessionId, summary);
      if (this.recent.size > RECENT_SUMMARIES) this.recent.delete(this.recent.keys().next().value as string);
      this.opts.log.info(`session ${sessionId} stopped`, summary.latency);
      return summary;
    } finally {
      this.sessions.delete(sessionId);
      if (this.opts.retainAudio) this.finished.set(sessionId, session);
      this.observe((o) => o.sessionEnded(sessionId, audioSeconds));
    }
  }

  /** A session's text so far (running), or its final summary (finished recently). */
  async summary(sessionId: string): Promise<SessionSummary> {
    const live = this.sessions.get(sessionId);
    if (live) return live.current();
    const done = this.recent.get(sessionId);
    if (done) return done;
    throw new CodedError('SESSION_NOT_FOUND', `There is no recent dictation session ${sessionId}.`);
  }

  /**
   * Discards a session. One that is already stopping is left to finish (stop() removes it and keeps its
   * summary); this then only waits for that.
   */
  async cancel(sessionId: string, owner: string): Promise<void> {
    const session = this.require(sessionId, owner);
    if (session.isStopping) {
      await session.cancel(); // waits for the stop, which ends the session for the observer
      return;
    }
    this.sessions.delete(sessionId);
    await session.cancel();
    // The finals already emitted were shown and stay on screen: the history keeps them too.
    this.observe((o) => o.sessionEnded(sessionId, null));
  }

  /** The client went away: finalize its sessions so what was said is still transcribed and logged. */
  async stopOwnedBy(owner: string): Promise<void> {
    const mine = [...this.sessions.values()].filter((s) => s.owner === owner);
    await Promise.all(mine.map((s) => this.stop(s.id, owner).catch((error: unknown) => this.opts.log.warn(`stopping ${s.id} failed`, error))));
  }

  /** Shutdown: every session ends now, those being stopped included (their stop() fails with ABORTED). */
  async dispose(): Promise<void> {
    await Promise.all([...this.sessions.values()].map(async (s) => {
      await s.abort();
      this.observe((o) => o.sessionEnded(s.id, null));
    }));
    this.sessions.clear();
  }
}
