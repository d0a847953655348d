// The hotkey's press/release state machine: key events in, dictation actions
// (start / stop / cancel) out. Pure (no timers, no Electron, no DOM): the
// desktop app feeds it the global key hook's events, web mode the page's
// keydown/keyup, tests plain calls. Every action carries the time of the key
// event that caused it, so the latency panel can measure from key-down.
//
//   toggle        press starts, the next press stops. A lone modifier acts on
//                 its release, and only if no other key was pressed meanwhile
//                 (Ctrl+C must not toggle dictation).
//   push-to-talk  press starts, release stops.
//   hybrid        press starts; a release within tapMs latches (dictation goes
//                 on, the next press stops it), a longer hold stops on release.
//   Esc           cancels whatever runs, in every mode.
//
// A lone modifier in push-to-talk/hybrid starts on press (so the first word is
// captured); another key within tapMs of the press means the user was typing a
// shortcut, and the session just started is cancelled. Auto-repeat (repeated
// keydowns without keyups) is ignored. The dictation may also start or end
// elsewhere (the window's button, a failure): sessionChanged() keeps the
// machine in step, so the next press does what the user sees.
import type { HotkeyMode } from '../../ipc/contract.js';
import { MODIFIER_CODES, isModifierCode, modifierMatches, type Chord, type ModifierGroup } from './chord.js';

export type { HotkeyMode };
export const HOTKEY_MODES: readonly HotkeyMode[] = ['toggle', 'push-to-talk', 'hybrid'];

export type HotkeyActionType = 'start' | 'stop' | 'cancel';
/** Why an action happened (for logs and tests). */
export type HotkeyReason = 'press' | 'release' | 'escape' | 'interrupted' | 'focus-lost';

export interface HotkeyAction {
  type: HotkeyActionType;
  /** Time of the key event that caused it (ms, the caller's clock: epoch ms in the app). */
  at: number;
  reason: HotkeyReason;
}

export interface HotkeyMachineOptions {
  mode: HotkeyMode;
  chord: Chord;
  /** Hybrid: a shorter press latches. Lone modifier: another key sooner than this cancels. */
  tapMs: number;
}

/** idle: no dictation; holding: the key is held and keeps dictation on; latched: dictation runs until the next press. */
export type HotkeyPhase = 'idle' | 'holding' | 'latched';

/** At most this many ends we caused are waited for (a stop the window ignored never produces one). */
const MAX_PENDING_ENDS = 4;

export class HotkeyMachine {
  private readonly held = new Set<string>();
  private chordDown = false;
  private pressAt = 0;
  private phaseNow: HotkeyPhase = 'idle';
  /** This press started the dictation (a lone-modifier shortcut may still cancel it). */
  private pressStarted = false;
  /** Another key came during a lone-modifier press: its release does nothing. */
  private interrupted = false;
  /** The press already acted (stop, cancel): its release must not act again. */
  private swallowRelease = false;
  /** Stops and cancels sent whose session end has not been seen yet. */
  private pendingEnds = 0;

  constructor(private readonly options: HotkeyMachineOptions) {
    if (options.chord.key === null && options.chord.modifiers.length !== 1) throw new Error('a lone-modifier hotkey has exactly one modifier');
  }

  get phase(): HotkeyPhase {
    return this.phaseNow;
  }

  get mode(): HotkeyMode {
    return this.options.mode;
  }

  keyDown(code: string, at: number): HotkeyAction[] {
    if (this.held.has(code)) return []; // auto-repeat
    this.held.add(code);
    if (code === 'Escape') {
      if (this.phaseNow === 'idle') return [];
      if (this.chordDown) this.swallowRelease = true;
      return [this.end('cancel', at, 'escape')];
    }
    if (this.chordDown) return this.duringPress(code, at);
    if (!this.isPressEdge(code)) return [];
    this.chordDown = true;
    this.pressAt = at;
    this.interrupted = false;
    this.swallowRelease = false;
    this.pressStarted = false;
    return this.onPress(at);
  }

  keyUp(code: string, at: number): HotkeyAction[] {
    this.held.delete(code);
    if (!this.chordDown || !this.isReleaseEdge(code)) return [];
    this.chordDown = false;
    if (this.swallowRelease || this.interrupted) return [];
    return this.onRelease(at);
  }

  /**
   * A whole press and release at once: Electron's globalShortcut reports only that a chord was pressed
   * (toggle mode without the key hook).
   */
  tap(at: number): HotkeyAction[] {
    if (this.options.mode !== 'toggle') return [];
    return this.toggle(at);
  }

  /**
   * Key-ups can no longer arrive (the page lost focus, the machine slept): forget held keys; a hold in
   * progress ends as if released.
   */
  releaseAll(at: number): HotkeyAction[] {
    const wasHolding = this.chordDown && this.phaseNow === 'holding' && !this.swallowRelease;
    this.held.clear();
    this.chordDown = false;
    if (!wasHolding) return [];
    if (this.options.mode === 'hybrid' && at - this.pressAt < this.options.tapMs) {
      this.phaseNow = 'latched';
      return [];
    }
    return [this.end('stop', at, 'focus-lost')];
  }

  /**
   * A start this machine sent never became a session (no model, the microphone refused): a latched
   * dictation that does not exist must not make the next press a stop. A key still held keeps its hold.
   */
  startFailed(): void {
    if (this.phaseNow === 'latched' || (this.phaseNow === 'holding' && !this.chordDown)) this.phaseNow = 'idle';
  }

  /** Whether any dictation runs now, from the session events (a start or end from anywhere). */
  sessionChanged(active: boolean): void {
    if (active) {
      // A late "still running" of a session we already stopped is not a new session.
      if (this.phaseNow === 'idle' && this.pendingEnds === 0) this.phaseNow = 'latched';
      return;
    }
    if (this.pendingEnds > 0) {
      this.pendingEnds--;
      return;
    }
    // Ended elsewhere (the window's Stop, a failure). A hold in progress stays: its release sends a stop nobody needs.
    if (this.phaseNow === 'latched') this.phaseNow = 'idle';
  }

  // ------------------------------------------------------------ internals

  private onPress(at: number): HotkeyAction[] {
    const { mode, chord } = this.options;
    if (mode === 'toggle') return chord.key === null ? [] : this.toggle(at);
    if (this.phaseNow === 'idle') {
      this.phaseNow = 'holding';
      this.pressStarted = true;
      return [{ type: 'start', at, reason: 'press' }];
    }
    // Dictation runs (latched, or started in the window): this press ends it.
    this.swallowRelease = true;
    return [this.end('stop', at, 'press')];
  }

  private onRelease(at: number): HotkeyAction[] {
    const { mode, chord, tapMs } = this.options;
    if (mode === 'toggle') return chord.key === null ? this.toggle(this.pressAt) : [];
    if (this.phaseNow !== 'holding') return [];
    if (mode === 'hybrid' && at - this.pressAt < tapMs) {
      this.phaseNow = 'latched';
      return [];
    }
    return [this.end('stop', at, 'release')];
  }

  /** Another key went down while the hotkey is held. */
  private duringPress(code: string, at: number): HotkeyAction[] {
    const { chord, tapMs } = this.options;
    if (chord.key !== null) return [];
    const spec = chord.modifiers[0]!;
    // The same modifier's other side (some X servers report both) is not another key.
    if (isModifierCode(code) && MODIFIER_CODES[code]!.group === spec.group) return [];
    if (this.options.mode === 'toggle') {
      this.interrupted = true;
      return [];
    }
    if (this.phaseNow === 'holding' && this.pressStarted && at - this.pressAt < tapMs) {
      this.interrupted = true;
      return [this.end('cancel', at, 'interrupted')];
    }
    return [];
  }

  private toggle(at: number): HotkeyAction[] {
    if (this.phaseNow === 'idle') {
      this.phaseNow = 'latched';
      return [{ type: 'start', at, reason: 'press' }];
    }
    return [this.end('stop', at, 'press')];
  }

  private end(type: 'stop' | 'cancel', at: number, reason: HotkeyReason): HotkeyAction {
    this.phaseNow = 'idle';
    this.pendingEnds = Math.min(MAX_PENDING_ENDS, this.pendingEnds + 1);
    return { type, at, reason };
  }

  private heldGroups(): Set<ModifierGroup> {
    const groups = new Set<ModifierGroup>();
    for (const code of this.held) if (isModifierCode(code)) groups.add(MODIFIER_CODES[code]!.group);
    return groups;
  }

  private modifiersSatisfied(): boolean {
    const required = this.options.chord.modifiers;
    if (!required.every((spec) => [...this.held].some((code) => modifierMatches(spec, code)))) return false;
    // Exactly these groups: Ctrl+Alt+Space is not Ctrl+Space.
    const groups = this.heldGroups();
    return groups.size === new Set(required.map((m) => m.group)).size;
  }

  private isPressEdge(code: string): boolean {
    const { chord } = this.options;
    if (chord.key !== null) return code === chord.key && this.modifiersSatisfied();
    const spec = chord.modifiers[0]!;
    if (!modifierMatches(spec, code)) return false;
    // One modifier alone: nothing else held but (the other side of) the same modifier.
    for (const other of this.held) {
      if (other === code) continue;
      if (!isModifierCode(other) || MODIFIER_CODES[other]!.group !== spec.group) return false;
    }
    return true;
  }

  private isReleaseEdge(code: string): boolean {
    const { chord } = this.options;
    if (chord.key !== null) return code === chord.key || (isModifierCode(code) && !this.modifiersSatisfied());
    const spec = chord.modifiers[0]!;
    return modifierMatches(spec, code) && ![...this.held].some((held) => modifierMatches(spec, held));
  }
}
