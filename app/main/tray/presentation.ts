// DesktopState → what the tray and the overlay show: the icon's look, the
// tooltip, the menu model and the overlay's content. Pure; the Electron
// adapters (tray.ts, overlay-window.ts) only render these.
import type { DesktopState } from './desktop-state.js';

export type TrayLook = 'idle' | 'listening' | 'transcribing' | 'error';

export function trayLook(s: DesktopState): TrayLook {
  if (s.session === 'listening' || s.session === 'speech' || s.meeting) return 'listening';
  if (s.session === 'finalizing' || s.fileJobs > 0) return 'transcribing';
  if (s.sessionError || s.engine.state === 'crashed' || s.engine.state === 'missing') return 'error';
  return 'idle';
}

const ENGINE_WORDS: Record<DesktopState['engine']['state'], string> = {
  missing: 'engine missing',
  starting: 'starting',
  'no-model': 'no model loaded',
  loading: 'loading the model',
  ready: 'ready',
  busy: 'ready',
  crashed: 'engine stopped',
  restarting: 'restarting the engine',
  'idle-unloaded': 'ready (model unloaded while idle)',
};

/** One line for the tray tooltip (some desktops show only the first 64 characters). */
export function trayTooltip(s: DesktopState): string {
  switch (trayLook(s)) {
    case 'listening':
      return s.session === null && s.meeting ? 'Parakeet — recording a meeting' : 'Parakeet — listening';
    case 'transcribing':
      return s.session === 'finalizing' ? 'Parakeet — transcribing' : `Parakeet — transcribing ${s.fileJobs === 1 ? 'a file' : `${s.fileJobs} files`}`;
    case 'error':
      return `Parakeet — ${s.sessionError ? 'dictation failed' : ENGINE_WORDS[s.engine.state]}`;
    default:
      return `Parakeet — ${ENGINE_WORDS[s.engine.state]}${s.hotkey && !s.hotkey.problem ? ` · ${s.hotkey.key}` : ''}`;
  }
}

export type TrayCommand = 'toggle' | 'open' | 'quit';

export type MenuItemModel =
  | { kind: 'action'; id: TrayCommand; label: string; enabled: boolean }
  | { kind: 'info'; label: string }
  | { kind: 'separator' };

const HOTKEY_MODE_WORDS: Record<string, string> = { toggle: 'press to start/stop', 'push-to-talk': 'hold to talk', hybrid: 'tap to latch, hold to talk' };

export function trayMenu(s: DesktopState): MenuItemModel[] {
  const live = s.session !== null;
  // A meeting holds the microphone: dictation waits for it to end (the Meeting view stops it).
  const canStart = s.engine.model !== null && s.engine.state !== 'crashed' && s.engine.state !== 'missing' && !s.meeting;
  const items: MenuItemModel[] = [
    { kind: 'action', id: 'toggle', label: live ? 'Stop dictation' : 'Start dictation', enabled: live || canStart },
    ...(s.meeting ? [{ kind: 'info', label: 'A meeting is recording (stop it in the Meeting view)' } as const] : []),
    { kind: 'action', id: 'open', label: 'Open Parakeet', enabled: true },
    { kind: 'separator' },
    { kind: 'info', label: `Model: ${s.engine.model ?? 'none loaded'}` },
    { kind: 'info', label: `Device: ${s.device ?? 'not chosen yet'}` },
  ];
  if (s.hotkey) {
    items.push({
      kind: 'info',
      label: s.hotkey.problem ? `Hotkey: ${s.hotkey.key} (not working, see Settings)` : `Hotkey: ${s.hotkey.key}, ${HOTKEY_MODE_WORDS[s.hotkey.mode] ?? s.hotkey.mode}`,
    });
  }
  const error = s.sessionError ?? (s.engine.state === 'crashed' ? s.engine.lastError : null);
  if (error) items.push({ kind: 'info', label: `Error: ${error.length > 80 ? `${error.slice(0, 79)}…` : error}` });
  items.push({ kind: 'separator' }, { kind: 'action', id: 'quit', label: 'Quit Parakeet', enabled: true });
  return items;
}

export interface OverlayContent {
  visible: boolean;
  /** recording: the red dot; transcribing: the last words are being decoded. */
  dot: 'recording' | 'transcribing';
  /** 0..1 on the meter's dB scale, rounded to 1/20 so the window is not redrawn for noise. */
  level: number;
  text: string;
  /** For screen readers and the window title. */
  label: string;
}

/** The session's RMS on the window's meter scale (renderer/audio/level.ts): -60 dBFS → 0, 0 dBFS → 1, linear in dB. */
export function meterLevel(rms: number): number {
  if (!(rms > 0)) return 0;
  const db = 20 * Math.log10(rms);
  return Math.min(1, Math.max(0, (db + 60) / 60));
}

export function overlayContent(s: DesktopState, enabled: boolean): OverlayContent {
  const live = s.session !== null;
  const dot = s.session === 'finalizing' ? 'transcribing' : 'recording';
  // A meeting shows the red dot too (its text is in the Meeting view, not over other apps).
  const meetingOnly = !live && s.meeting;
  return {
    visible: enabled && (live || meetingOnly),
    dot,
    level: live ? Math.round(meterLevel(s.level) * 20) / 20 : 0,
    text: live ? s.partial : meetingOnly ? 'Recording a meeting' : '',
    label: meetingOnly ? 'Parakeet is recording a meeting' : dot === 'recording' ? 'Parakeet is listening' : 'Parakeet is transcribing',
  };
}
