// Sends each dictation final to the focused application with the insert
// settings: one segment after another, separated by a space. A failure is
// reported once per session (a notice that says what to install or allow),
// never silently, and the text stays in the app (and on the clipboard where
// that still works).
import type { InsertRequirements, InsertSettings, InsertTestResult, Notice, SessionStateEvent, TranscriptEvent } from '../../ipc/contract.js';
import { CodedError } from '../../../types/errors.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import { segmentSeparator } from '../../shared/text-transform.js';
import { InsertError } from './errors.js';
import type { DeliveryMode, DeliveryOutcome, TextInserter } from './text-inserter.js';

export const SAMPLE_TEXT = 'Parakeet test: café, naïve, "quotes" & (brackets).';

export interface DictationInsertOptions {
  bus: EventBus;
  inserter: TextInserter | null;
  settings: () => InsertSettings;
  /** settings.text.trailingSpace: each piece ends with a space instead of the next one starting with one. */
  trailingSpace?: () => boolean;
  /** Electron: our own window has focus, so the text is already where the user looks (and must not be typed twice). */
  ownWindowFocused?: () => boolean;
  log: Logger;
  /** insert:check (requirements.ts with this machine's platform, environment and adapter). */
  requirements?: () => InsertRequirements;
}

interface SessionInsert {
  /** Text delivered (or attempted) so far, for the separator and the copy fallback. */
  text: string;
  reported: boolean;
}

export class DictationInsert {
  private readonly sessions = new Map<string, SessionInsert>();
  private readonly unsubscribe: (() => void)[];

  constructor(private readonly options: DictationInsertOptions) {
    this.unsubscribe = [
      options.bus.on('dictation:transcript', (event) => this.onTranscript(event)),
      options.bus.on('dictation:state', (event) => this.onState(event)),
    ];
  }

  dispose(): void {
    for (const off of this.unsubscribe) off();
    this.sessions.clear();
  }

  /** Resolves once every queued delivery is done (tests, shutdown). */
  idle(): Promise<void> {
    return this.options.inserter?.idle() ?? Promise.resolve();
  }

  /** What inserting needs here and what is missing (no keystroke is sent). */
  check(): InsertRequirements {
    return this.options.requirements?.() ?? { platform: this.options.inserter?.platform ?? null, ready: false, modes: [], items: [], summary: 'Not checked.' };
  }

  /**
   * insert:test: inserts `text` now with the current settings ('off' is taken as 'paste'). `intoOwnWindow`: the
   * first run's test field is in our own window, so our focus is expected there (the field shows what arrived).
   */
  async test(text = SAMPLE_TEXT, intoOwnWindow = false): Promise<InsertTestResult> {
    const { inserter } = this.options;
    if (!inserter) throw new CodedError('NOT_SUPPORTED', noDisplayMessage());
    if (!intoOwnWindow && this.options.ownWindowFocused?.()) {
      throw new CodedError('INSERT_FAILED', 'Parakeet itself had the focus: switch to another app during the countdown.');
    }
    const s = this.options.settings();
    const mode: DeliveryMode = s.mode === 'off' ? 'paste' : s.mode;
    let outcome: DeliveryOutcome;
    try {
      outcome = await inserter.deliver(text, { ...s, mode });
    } catch (error) {
      throw new CodedError('INSERT_FAILED', describe(error));
    }
    return { mode, platform: inserter.platform, text, delivered: outcome.method, confirmed: outcome.confirmed, terminal: outcome.terminal, detail: outcome.detail };
  }

  private onState(event: SessionStateEvent): void {
    if (event.state === 'stopped' || event.state === 'failed') this.sessions.delete(event.sessionId);
  }

  private onTranscript(event: TranscriptEvent): void {
    if (event.kind !== 'final') return;
    // Spaces only: a line break at either end was dictated ("new line").
    const text = event.text.replace(/^ +| +$/g, '');
    const settings = this.options.settings();
    if (!text || settings.mode === 'off') return;
    const session = this.sessions.get(event.sessionId) ?? { text: '', reported: false };
    this.sessions.set(event.sessionId, session);
    // A line break or a segment that starts with a mark ("comma …") takes no space; trailing-space mode puts
    // the space after each piece (so typing or the next dictation can follow), not before the next one.
    const trailing = this.options.trailingSpace?.() ?? false;
    const piece = trailing
      ? `${text}${/\n$/.test(text) ? '' : ' '}`
      : `${segmentSeparator(session.text, text)}${text}`;
    session.text += piece;
    if (this.options.ownWindowFocused?.()) return;
    const { inserter } = this.options;
    if (!inserter) return this.report(event.sessionId, session, new InsertError('UNSUPPORTED', noDisplayMessage()), false);
    // Copy mode puts the whole dictation so far on the clipboard, not only the last segment.
    const delivery = settings.mode === 'copy' ? session.text : piece;
    const started = performance.now();
    inserter.deliver(delivery, { ...settings, mode: settings.mode }).then(
      async (outcome) => {
        this.options.bus.emit('dictation:inserted', {
          sessionId: event.sessionId, segmentId: event.segmentId, ms: Math.round(performance.now() - started),
          method: outcome.method, confirmed: outcome.confirmed, at: Date.now(), chars: delivery.length,
        });
        // Typed or pasted text that was only copied (Wayland without a keystroke tool, a window that did not read
        // the paste): the whole dictation so far goes on the clipboard, as in copy mode, and the user is told once.
        if (outcome.method !== 'copied' || settings.mode === 'copy') return;
        await this.copyFallback(session.text);
        this.tell(event.sessionId, session, outcome.detail);
      },
      async (error: unknown) => {
        const copied = settings.mode !== 'copy' && (await this.copyFallback(session.text));
        this.report(event.sessionId, session, error, copied);
      },
    );
  }

  private async copyFallback(text: string): Promise<boolean> {
    try {
      await this.options.inserter?.deliver(text, { mode: 'copy', restoreClipboard: false, restoreDelayMs: 0 });
      return true;
    } catch {
      return false;
    }
  }

  /** Once per session: the text went to the clipboard instead of the focused app. */
  private tell(sessionId: string, session: SessionInsert, detail: string): void {
    this.options.log.info(`insert copied only (${sessionId}): ${detail}`);
    if (session.reported) return;
    session.reported = true;
    const action = this.options.inserter?.platform === 'wayland'
      ? 'To insert directly, install wtype (Sway, Hyprland, KDE) or ydotool with its ydotoold service (any compositor).'
      : undefined;
    this.options.bus.emit('notice', { level: 'info', code: 'INSERT_COPIED', message: `${detail} The dictation so far is on the clipboard.`, ...(action ? { action } : {}) });
  }

  private report(sessionId: string, session: SessionInsert, error: unknown, copied: boolean): void {
    this.options.log.warn(`insert failed (${sessionId})`, error);
    if (session.reported) return;
    session.reported = true;
    const notice: Notice = {
      level: 'warning',
      code: 'INSERT_FAILED',
      message: `${error instanceof InsertError ? error.message : describe(error)} The text is ${copied ? 'on the clipboard and ' : ''}in the Dictate view.`,
      ...(error instanceof InsertError && error.action ? { action: error.action } : {}),
    };
    this.options.bus.emit('notice', notice);
  }
}

function describe(error: unknown): string {
  if (error instanceof InsertError) return error.action ? `${error.message} ${error.action}` : error.message;
  return error instanceof Error ? error.message : String(error);
}

function noDisplayMessage(): string {
  return 'No graphical session was found (neither WAYLAND_DISPLAY nor DISPLAY is set), so text cannot be inserted into other apps.';
}
