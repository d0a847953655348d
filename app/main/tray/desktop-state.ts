// What the desktop shows outside the window (tray icon, its menu, the
// overlay), folded from the services' events. Pure and Electron-free: the
// tray and overlay adapters only render what presentation.ts derives from it.
import type { EngineStatus, EventMap, SessionState } from '../../ipc/contract.js';
import type { EventBus } from '../events.js';

export interface DesktopState {
  /** The newest live session's state, or null when none runs. */
  session: SessionState | null;
  /** Input level 0..1 of the live session. */
  level: number;
  /** The live session's tentative text (its newest partial, cut to the last words). */
  partial: string;
  /** File transcriptions running. */
  fileJobs: number;
  /** A meeting records (both tracks): the microphone is live even with no dictation. */
  meeting: boolean;
  engine: Pick<EngineStatus, 'state'> & { model: string | null; lastError: string | null };
  /** Devices that ran the last decode, else the selected device. */
  device: string | null;
  /** The last session failed (cleared when the next one starts). */
  sessionError: string | null;
  /** The hotkey in effect and what does not work about it (hotkey-service status). */
  hotkey: { mode: string; key: string; problem: string | null } | null;
}

/** The overlay shows a line, not a document: the end of the partial. */
export const PARTIAL_CHARS = 160;

export function initialDesktopState(): DesktopState {
  return {
    session: null,
    level: 0,
    partial: '',
    fileJobs: 0,
    meeting: false,
    engine: { state: 'starting', model: null, lastError: null },
    device: null,
    sessionError: null,
    hotkey: null,
  };
}

/** The last `max` characters of `text`, starting at a word. */
export function tail(text: string, max = PARTIAL_CHARS): string {
  const t = text.trim();
  if (t.length <= max) return t;
  const cut = t.slice(t.length - max);
  const space = cut.indexOf(' ');
  return `…${space >= 0 && space < 30 ? cut.slice(space + 1) : cut}`;
}

const LIVE: ReadonlySet<SessionState> = new Set(['listening', 'speech', 'finalizing']);

/**
 * Follows the bus; `changed` runs after every event that altered the state. Bounded: one live session id and
 * the running file job ids (removed when they finish or fail).
 */
export class DesktopStateTracker {
  private value = initialDesktopState();
  private liveSession: string | null = null;
  private readonly jobs = new Set<string>();
  private readonly off: (() => void)[];

  constructor(bus: EventBus, private readonly changed: (state: DesktopState) => void) {
    this.off = [
      bus.on('dictation:state', (e) => this.onSession(e)),
      bus.on('dictation:transcript', (e) => {
        if (e.sessionId !== this.liveSession) return;
        this.update({ partial: e.kind === 'partial' ? tail(e.text) : '' });
      }),
      bus.on('engine:status', (e) => this.onEngine(e)),
      bus.on('meeting:state', (e) => this.update({ meeting: e.state !== 'stopped' })),
      bus.on('devices:changed', (e) => this.update({ device: e.lastRan[0] ?? e.active?.device.name ?? null })),
      bus.on('files:progress', (e) => {
        if (e.fraction >= 1) this.jobs.delete(e.jobId);
        else this.jobs.add(e.jobId);
        this.update({ fileJobs: this.jobs.size });
      }),
    ];
  }

  get state(): DesktopState {
    return this.value;
  }

  /** The hotkey service's status (it has no event of its own). */
  setHotkey(hotkey: DesktopState['hotkey']): void {
    this.update({ hotkey });
  }

  /** The file jobs that really run (a failed or cancelled job never reports 100 %): the adapter reconciles. */
  fileJobsRunning(jobIds: readonly string[]): void {
    for (const id of [...this.jobs]) if (!jobIds.includes(id)) this.jobs.delete(id);
    this.update({ fileJobs: this.jobs.size });
  }

  dispose(): void {
    for (const off of this.off) off();
  }

  private onSession(e: EventMap['dictation:state']): void {
    if (LIVE.has(e.state)) {
      const isNew = this.liveSession !== e.sessionId;
      this.liveSession = e.sessionId;
      this.update({ session: e.state, level: e.level, ...(isNew ? { partial: '', sessionError: null } : {}) });
      return;
    }
    if (e.sessionId !== this.liveSession) return;
    this.liveSession = null;
    this.update({
      session: null,
      level: 0,
      partial: '',
      sessionError: e.state === 'failed' ? e.notice?.message ?? 'The dictation failed.' : null,
    });
  }

  private onEngine(e: EngineStatus): void {
    this.update({
      engine: { state: e.state, model: e.model?.name ?? null, lastError: e.lastError?.message ?? null },
    });
  }

  private update(patch: Partial<DesktopState>): void {
    const next = { ...this.value, ...patch };
    const keys = Object.keys(patch) as (keyof DesktopState)[];
    if (keys.every((k) => JSON.stringify(next[k]) === JSON.stringify(this.value[k]))) return;
    this.value = next;
    this.changed(next);
  }
}
