// The hold key of push-to-talk and hybrid mode: a chord ("Ctrl+Shift+Space"),
// a bare function key ("F8") or one modifier alone ("RightCtrl"). Keys are
// named by KeyboardEvent.code ("ControlRight", "KeyA", "F8"), so the same parsed
// chord matches the page's keydown events (web mode) and the global key hook's
// (desktop app, which maps its scan codes to these names). Pure: shared by the
// settings validation, the renderer's form and both key handlers.

export type ModifierGroup = 'ctrl' | 'shift' | 'alt' | 'meta';
export type Side = 'left' | 'right' | 'any';

export interface ModifierSpec {
  group: ModifierGroup;
  side: Side;
}

export interface Chord {
  /** Modifiers that must be held (with a key) or the one modifier that is the whole hotkey (key null). */
  modifiers: ModifierSpec[];
  /** KeyboardEvent.code of the key; null when the hotkey is one modifier alone. */
  key: string | null;
}

export type ChordCheck = { ok: true; chord: Chord } | { ok: false; reason: string };

/** KeyboardEvent.code of each modifier key and its group. */
export const MODIFIER_CODES: Readonly<Record<string, { group: ModifierGroup; side: 'left' | 'right' }>> = {
  ControlLeft: { group: 'ctrl', side: 'left' },
  ControlRight: { group: 'ctrl', side: 'right' },
  ShiftLeft: { group: 'shift', side: 'left' },
  ShiftRight: { group: 'shift', side: 'right' },
  AltLeft: { group: 'alt', side: 'left' },
  AltRight: { group: 'alt', side: 'right' },
  MetaLeft: { group: 'meta', side: 'left' },
  MetaRight: { group: 'meta', side: 'right' },
};

export const isModifierCode = (code: string): boolean => Object.hasOwn(MODIFIER_CODES, code);

const GROUP_NAMES: Readonly<Record<string, ModifierGroup>> = {
  ctrl: 'ctrl', control: 'ctrl', commandorcontrol: 'ctrl', cmdorctrl: 'ctrl',
  shift: 'shift',
  alt: 'alt', option: 'alt', opt: 'alt',
  super: 'meta', meta: 'meta', win: 'meta', cmd: 'meta', command: 'meta',
};

/** "RightCtrl", "LeftAlt", "AltGr" (= RightAlt), "RightOption", "RightCmd". */
function parseModifier(part: string): ModifierSpec | null {
  const lower = part.toLowerCase();
  if (lower === 'altgr') return { group: 'alt', side: 'right' };
  const sided = /^(left|right)(.+)$/.exec(lower);
  if (sided) {
    const group = Object.hasOwn(GROUP_NAMES, sided[2]!) ? GROUP_NAMES[sided[2]!] : undefined;
    return group ? { group, side: sided[1] as 'left' | 'right' } : null;
  }
  const group = Object.hasOwn(GROUP_NAMES, lower) ? GROUP_NAMES[lower] : undefined;
  return group ? { group, side: 'any' } : null;
}

/** Named keys (lower-case name → KeyboardEvent.code). Escape is not here: it cancels. */
const NAMED_KEYS: Readonly<Record<string, string>> = {
  space: 'Space', enter: 'Enter', return: 'Enter', tab: 'Tab', backspace: 'Backspace', delete: 'Delete', insert: 'Insert',
  home: 'Home', end: 'End', pageup: 'PageUp', pagedown: 'PageDown', up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft',
  right: 'ArrowRight', capslock: 'CapsLock', scrolllock: 'ScrollLock', numlock: 'NumLock', pause: 'Pause',
  printscreen: 'PrintScreen', minus: 'Minus', equal: 'Equal', comma: 'Comma', period: 'Period', slash: 'Slash',
  semicolon: 'Semicolon', quote: 'Quote', backquote: 'Backquote', bracketleft: 'BracketLeft',
  bracketright: 'BracketRight', backslash: 'Backslash',
};

/** Keys that may be the whole hotkey without a modifier: they type nothing in other apps. */
const BARE_KEYS = new Set(['Pause', 'ScrollLock', 'Insert', 'PrintScreen']);

function parseKey(part: string): string | null {
  if (/^[a-z]$/i.test(part)) return `Key${part.toUpperCase()}`;
  if (/^[0-9]$/.test(part)) return `Digit${part}`;
  const lower = part.toLowerCase();
  const fn = /^f([1-9]|1[0-9]|2[0-4])$/.exec(lower);
  if (fn) return `F${fn[1]}`;
  const num = /^num([0-9])$/.exec(lower);
  if (num) return `Numpad${num[1]}`;
  return Object.hasOwn(NAMED_KEYS, lower) ? NAMED_KEYS[lower]! : null;
}

const isFunctionKey = (code: string): boolean => /^F\d+$/.test(code);

/** Parses a hold-key text; the reason says what is wrong in words the Settings form shows. */
export function parseChord(text: unknown): ChordCheck {
  if (typeof text !== 'string' || text.trim() === '') return { ok: false, reason: 'is empty' };
  if (text.length > 60) return { ok: false, reason: 'is too long' };
  const parts = text.split('+').map((p) => p.trim());
  if (parts.some((p) => p === '')) return { ok: false, reason: 'has an empty part (write the + key as "Equal")' };
  const last = parts[parts.length - 1]!;
  if (/^(esc|escape)$/i.test(last)) return { ok: false, reason: 'uses Esc, which cancels dictation' };
  const modifiers: ModifierSpec[] = [];
  for (const part of parts.slice(0, -1)) {
    const m = parseModifier(part);
    if (!m) return { ok: false, reason: `"${part}" is not a modifier (Ctrl, Shift, Alt, Super, or RightCtrl, LeftAlt…)` };
    if (modifiers.some((x) => x.group === m.group)) return { ok: false, reason: `repeats ${m.group === 'meta' ? 'Super' : m.group}` };
    modifiers.push(m);
  }
  const lastModifier = parseModifier(last);
  if (lastModifier) {
    if (modifiers.length > 0) return { ok: false, reason: 'ends in a modifier: give one modifier alone (e.g. RightCtrl) or end in a key' };
    return { ok: true, chord: { modifiers: [lastModifier], key: null } };
  }
  const key = parseKey(last);
  if (!key) return { ok: false, reason: `"${last}" is not a key this app knows (A–Z, 0–9, F1–F24, Space, Enter, …)` };
  if (modifiers.length === 0 && !isFunctionKey(key) && !BARE_KEYS.has(key)) {
    return { ok: false, reason: 'needs a modifier (e.g. Ctrl+Space) or must be a function key or one modifier alone: a bare key would also type in every app' };
  }
  return { ok: true, chord: { modifiers, key } };
}

const GROUP_LABEL: Record<ModifierGroup, string> = { ctrl: 'Ctrl', shift: 'Shift', alt: 'Alt', meta: 'Super' };

/** The chord in the canonical spelling ("Ctrl+Shift+Space", "RightCtrl"), for labels and menus. */
export function formatChord(chord: Chord): string {
  const mods = chord.modifiers.map((m) => (m.side === 'any' ? '' : m.side === 'left' ? 'Left' : 'Right') + GROUP_LABEL[m.group]);
  if (chord.key === null) return mods.join('+');
  const key = chord.key.replace(/^Key|^Digit/, '').replace(/^Numpad(\d)$/, 'Num$1').replace(/^Arrow/, '');
  return [...mods, key].join('+');
}

/** Does a held modifier code satisfy this spec? */
export function modifierMatches(spec: ModifierSpec, code: string): boolean {
  const m = Object.hasOwn(MODIFIER_CODES, code) ? MODIFIER_CODES[code] : undefined;
  return !!m && m.group === spec.group && (spec.side === 'any' || spec.side === m.side);
}
