// The desktop app's global hotkey, Electron-free: the settings choose a mode
// and a key, this wires the key source to the state machine
// (app/shared/hotkey/hotkey-machine.ts) and the machine's actions to the
// renderer ('dictation:hotkey'; the renderer owns the microphone).
//
//   toggle        the `toggle` accelerator through the OS shortcut registry
//                 (Electron globalShortcut: X11 grab, Windows/macOS hotkeys,
//                 the Wayland portal); no key hook needed.
//   push-to-talk, hybrid
//                 the `hold` key through the key hook (key-hook.ts), which
//                 hears presses and releases. Where the hook cannot run, the
//                 toggle accelerator takes over and a notice says why.
// With the hook running, Esc cancels from any app. A chord the OS registry
// refuses (another app owns it) is reported; after sleep the hook restarts and
// the shortcuts are registered again (resume()).
import type { HotkeyEvent, HotkeySettings, Notice, SessionState } from '../../ipc/contract.js';
import { checkAccelerator } from '../../ipc/accelerator.js';
import { MODIFIER_CODES, parseChord, type Chord } from '../../shared/hotkey/chord.js';
import { HotkeyMachine, type HotkeyAction } from '../../shared/hotkey/hotkey-machine.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import type { SettingsStore } from '../settings.js';
import type { HookSupport } from './hook-availability.js';
import { KeyHook, type KeyHookSpawner } from './key-hook.js';

/** The OS shortcut registry (Electron globalShortcut): press only; register() is false when the chord is taken. */
export interface ShortcutRegistry {
  register(accelerator: string, pressed: () => void): boolean;
  unregister(accelerator: string): void;
}

export interface HotkeyServiceOptions {
  settings: SettingsStore;
  bus: EventBus;
  log: Logger;
  registry: ShortcutRegistry | null;
  /** Whether the key hook can hear keys here (hook-availability.ts); read at each (re)configuration. */
  support: () => HookSupport;
  spawnHook: KeyHookSpawner;
  /** The key hook's environment (tests: an Xvfb DISPLAY). */
  env: NodeJS.ProcessEnv;
  now?: () => number;
  /** A start that produced no session within this long did not happen (ms, default 5000). */
  startTimeoutMs?: number;
  /** How long the key hook may take to start (ms; default HOOK_START_TIMEOUT_MS). */
  hookStartTimeoutMs?: number;
}

export type HotkeyBackend = 'shortcut' | 'key-hook' | 'none';

export interface HotkeyStatus {
  mode: HotkeySettings['mode'];
  backend: HotkeyBackend;
  /** The key in effect ("RightCtrl", "CommandOrControl+Shift+Space"). */
  key: string;
  /** What does not work as chosen, in words; null when everything does. */
  problem: string | null;
}

const LIVE: ReadonlySet<SessionState> = new Set(['listening', 'speech', 'finalizing']);

/** The key codes the hook process may name: Esc, and the hold key's key and modifiers (both sides). */
export function watchedCodes(chord: Chord | null): string[] {
  const codes = new Set(['Escape']);
  if (!chord) return [...codes];
  if (chord.key) codes.add(chord.key);
  for (const code of Object.keys(MODIFIER_CODES)) codes.add(code); // modifiers are needed to match chords exactly
  return [...codes];
}

/** An Electron accelerator for a chord whose modifiers name no side (sided ones, lone modifiers: none). */
export function acceleratorOf(chord: Chord): string | null {
  if (chord.key === null || chord.modifiers.some((m) => m.side !== 'any')) return null;
  const names = { ctrl: 'CommandOrControl', shift: 'Shift', alt: 'Alt', meta: 'Super' } as const;
  const key = chord.key.replace(/^Key|^Digit/, '').replace(/^Numpad(\d)$/, 'num$1').replace(/^Arrow/, '');
  const accelerator = [...chord.modifiers.map((m) => names[m.group]), key === 'Enter' ? 'Return' : key].join('+');
  return checkAccelerator(accelerator).ok ? accelerator : null;
}

export class HotkeyService {
  private machine: HotkeyMachine | null = null;
  private hook: KeyHook | null = null;
  private registered: string[] = [];
  private config: HotkeySettings;
  private current: HotkeyStatus;
  private readonly live = new Set<string>();
  /** Notices already shown for the current settings (a resume must not repeat them). */
  private readonly announced = new Set<string>();
  private readonly off: (() => void)[];
  private readonly now: () => number;
  private disposed = false;

  constructor(private readonly options: HotkeyServiceOptions) {
    this.now = options.now ?? Date.now;
    this.config = options.settings.get().hotkey;
    this.current = { mode: this.config.mode, backend: 'none', key: '', problem: null };
    this.off = [
      options.settings.on('changed', ({ next, previous }) => {
        if (JSON.stringify(next.hotkey) === JSON.stringify(previous.hotkey)) return;
        this.announced.clear();
        this.configure(next.hotkey);
      }),
      options.bus.on('dictation:state', (ev) => this.onSessionState(ev.sessionId, ev.state)),
    ];
    this.configure(this.config);
  }

  status(): HotkeyStatus {
    return { ...this.current };
  }

  /** After sleep: key-ups were lost, the hook's display connection and the OS grabs may be gone. */
  resume(): void {
    if (this.disposed) return;
    this.emitActions(this.machine?.releaseAll(this.now()) ?? []);
    this.configure(this.config);
  }

  /** Before sleep: a held key will not be released where we can hear it. */
  suspend(): void {
    this.emitActions(this.machine?.releaseAll(this.now()) ?? []);
  }

  dispose(): void {
    this.disposed = true;
    if (this.startTimer) clearTimeout(this.startTimer);
    for (const off of this.off) off();
    this.teardown();
  }

  // ------------------------------------------------------------ internals

  private configure(config: HotkeySettings): void {
    this.teardown();
    this.config = config;
    const wantsHook = config.mode !== 'toggle';
    const parsed = parseChord(config.hold);
    const support = this.options.support();
    const hookProblem = support.kind === 'available' ? null : support.reason;
    if (wantsHook && parsed.ok && support.kind !== 'unavailable') {
      this.machine = new HotkeyMachine({ mode: config.mode, chord: parsed.chord, tapMs: config.tapMs });
      this.syncMachine();
      this.current = { mode: config.mode, backend: 'key-hook', key: config.hold, problem: hookProblem };
      if (hookProblem) this.notify(hookProblem, 'Toggle mode works everywhere the shortcut can be registered.');
      this.startHook(parsed.chord, true);
      // The OS registry owns the chord too where it can: the key then stops reaching the focused app, and a
      // chord another app owns is reported. The hook still times press and release.
      const accelerator = acceleratorOf(parsed.chord);
      if (accelerator) this.registerShortcut(accelerator, () => undefined);
      this.options.log.info(`hotkey: ${config.mode} on ${config.hold} (key hook)`);
      return;
    }
    const fallback = wantsHook ? (parsed.ok ? hookProblem ?? 'The key hook cannot run here.' : `The hold key "${config.hold}" ${parsed.reason}.`) : null;
    this.useToggleShortcut(config, fallback);
    // Esc from any app where the hook can hear it; nothing is lost where it cannot (the window's Esc remains).
    if (support.kind === 'available' && this.options.registry) this.startHook(null, false);
  }

  /** The toggle accelerator through the OS registry: toggle mode, or a hold mode the hook cannot serve. */
  private useToggleShortcut(config: HotkeySettings, fallback: string | null): void {
    // The chord is unused in toggle mode without the hook (presses come through tap()).
    this.machine = new HotkeyMachine({ mode: 'toggle', chord: { modifiers: [], key: 'F24' }, tapMs: config.tapMs });
    this.syncMachine();
    if (fallback) this.notify(`${fallback} ${config.toggle} toggles dictation instead.`, 'Choose toggle mode in Settings → Hotkey to hide this message.');
    this.current = { mode: config.mode, backend: 'none', key: config.toggle, problem: fallback };
    if (!this.options.registry) {
      this.current.problem = fallback ?? 'No global shortcuts in this mode: the window\'s own keys work while it has the focus.';
      return;
    }
    // The window decides start or stop by what it shows (a start it could not make must not leave the next
    // press meaning "stop"); the machine still follows, for Esc.
    const pressed = (): void => this.emitActions((this.machine?.tap(this.now()) ?? []).map((a) => ({ ...a, type: 'toggle' as const })));
    if (this.registerShortcut(config.toggle, pressed)) this.current.backend = 'shortcut';
    this.options.log.info(`hotkey: toggle on ${config.toggle}${fallback ? ' (fallback)' : ''}`);
  }

  /**
   * `chord`: the hold key (null in toggle mode: the hook is there for Esc). The hook process is told which
   * keys to name; every other key reaches main only as "Other" (enough to tell a shortcut typed with a lone
   * modifier), so main never sees what the user types.
   */
  private startHook(chord: Chord | null, required: boolean): void {
    const hook = new KeyHook(this.options.spawnHook, this.options.env, {
      key: (down, code, at) => {
        const machine = this.machine;
        if (!machine || this.hook !== hook) return;
        // In toggle mode the hook is only for Esc.
        if (!required && code !== 'Escape') return;
        this.emitActions(down ? machine.keyDown(code, at) : machine.keyUp(code, at));
      },
      ready: () => this.options.log.info('key hook running'),
      failed: (reason) => {
        this.options.log.warn(`key hook: ${reason}`);
        if (this.hook !== hook) return;
        this.hook = null;
        if (!required) return;
        // Keep a working hotkey: the toggle accelerator, and say why push-to-talk stopped.
        this.emitActions(this.machine?.releaseAll(this.now()) ?? []);
        this.teardown();
        this.useToggleShortcut(this.config, `Push-to-talk stopped working: ${reason}.`);
      },
    }, watchedCodes(chord), this.options.hookStartTimeoutMs);
    this.hook = hook;
  }

  private registerShortcut(accelerator: string, pressed: () => void): boolean {
    const { registry, log } = this.options;
    if (!registry) return false;
    let ok = false;
    try {
      ok = checkAccelerator(accelerator).ok && registry.register(accelerator, pressed);
    } catch (error) {
      log.warn(`cannot register ${accelerator}`, error);
    }
    if (ok) {
      this.registered.push(accelerator);
      return true;
    }
    const checked = checkAccelerator(accelerator);
    this.notify(
      checked.ok
        ? `The hotkey ${accelerator} could not be registered: another application probably uses it.`
        : `The hotkey "${accelerator}" ${checked.reason}.`,
      'Choose another hotkey in Settings → Hotkey.',
    );
    return false;
  }

  private teardown(): void {
    this.hook?.stop();
    this.hook = null;
    for (const accelerator of this.registered) {
      try {
        this.options.registry?.unregister(accelerator);
      } catch {
        // Already gone (the OS dropped it on sleep): nothing to undo.
      }
    }
    this.registered = [];
  }

  private syncMachine(): void {
    if (this.live.size > 0) this.machine?.sessionChanged(true);
  }

  private onSessionState(sessionId: string, state: SessionState): void {
    const before = this.live.size > 0;
    if (LIVE.has(state)) this.live.add(sessionId);
    else this.live.delete(sessionId);
    const after = this.live.size > 0;
    if (before !== after) this.machine?.sessionChanged(after);
  }

  private startTimer: NodeJS.Timeout | null = null;

  /** After a start: if no session shows up, the machine forgets it (see HotkeyMachine.startFailed). */
  private watchStart(): void {
    if (this.startTimer) clearTimeout(this.startTimer);
    const machine = this.machine;
    this.startTimer = setTimeout(() => {
      this.startTimer = null;
      if (this.live.size === 0 && machine === this.machine) machine?.startFailed();
    }, this.options.startTimeoutMs ?? 5000);
    this.startTimer.unref();
  }

  private emitActions(actions: (Omit<HotkeyAction, 'type'> & { type: HotkeyEvent['action'] })[]): void {
    for (const action of actions) {
      if (action.type === 'start') this.watchStart();
      const event: HotkeyEvent = { action: action.type, at: action.at, mode: this.config.mode };
      this.options.log.debug(`hotkey ${action.type} (${action.reason})`);
      this.options.bus.emit('dictation:hotkey', event);
    }
  }

  private notify(message: string, action: string): void {
    if (this.announced.has(message)) return;
    this.announced.add(message);
    const notice: Notice = { level: 'warning', code: 'HOTKEY_UNAVAILABLE', message, action };
    this.options.bus.emit('notice', notice);
  }
}
