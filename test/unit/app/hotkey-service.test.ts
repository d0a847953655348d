// The hotkey service without Electron: the OS shortcut registry and the key
// hook's process are stand-ins the test drives (the real hook runs in
// test/integration/key-hook-x11.test.ts). Which backend each mode gets, what
// is said when something cannot work, re-registration after resume, and
// staying in step with sessions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HotkeyEvent, HotkeySettings, Notice } from '../../../app/ipc/contract.js';
import { parseChord } from '../../../app/shared/hotkey/chord.js';
import { EventBus } from '../../../app/main/events.js';
import { hookSupport, type HookSupport } from '../../../app/main/hotkey/hook-availability.js';
import { HotkeyService, acceleratorOf, type ShortcutRegistry } from '../../../app/main/hotkey/hotkey-service.js';
import type { KeyHookSpawner } from '../../../app/main/hotkey/key-hook.js';
import { EventClock } from '../../../app/main/hotkey/event-clock.js';
import { nullLogger } from '../../../app/main/log.js';
import { SettingsStore } from '../../../app/main/settings.js';
import { scratch } from './tmp.js';

class FakeRegistry implements ShortcutRegistry {
  readonly owned = new Map<string, () => void>();
  readonly taken = new Set<string>();
  log: string[] = [];
  register(accelerator: string, pressed: () => void): boolean {
    this.log.push(`+${accelerator}`);
    if (this.taken.has(accelerator)) return false;
    this.owned.set(accelerator, pressed);
    return true;
  }
  unregister(accelerator: string): void {
    this.log.push(`-${accelerator}`);
    this.owned.delete(accelerator);
  }
  press(accelerator: string): void {
    const cb = this.owned.get(accelerator);
    assert.ok(cb, `${accelerator} is not registered`);
    cb();
  }
}

interface FakeHook {
  env: NodeJS.ProcessEnv;
  send(message: unknown): void;
  exit(code: number | null, signal: string | null): void;
  killed: boolean;
}

/** `starts`: the process reports 'ready' (as uiohook does once its hook runs); false: it hangs in start(). */
function fakeSpawner(starts = true): { spawn: KeyHookSpawner; hooks: FakeHook[] } {
  const hooks: FakeHook[] = [];
  const spawn: KeyHookSpawner = (_entry, env, onMessage, onExit) => {
    const hook: FakeHook = { env, send: onMessage, exit: onExit, killed: false };
    hooks.push(hook);
    if (starts) queueMicrotask(() => onMessage({ type: 'ready' }));
    return { kill: () => (hook.killed = true), lastError: () => (starts ? null : 'xrecord_start [1024]: XOpenDisplay failure!') };
  };
  return { spawn, hooks };
}

async function rig(hotkey: Partial<HotkeySettings>, support: HookSupport = { kind: 'available' }, registry: FakeRegistry | null = new FakeRegistry()) {
  const settings = await SettingsStore.open(scratch('hotkey-service'), nullLogger);
  await settings.set({ hotkey });
  const bus = new EventBus();
  const events: string[] = [];
  const notices: Notice[] = [];
  bus.on('dictation:hotkey', (e: HotkeyEvent) => events.push(`${e.action}@${e.at}`));
  bus.on('notice', (n) => notices.push(n));
  const { spawn, hooks } = fakeSpawner();
  let clock = 1000;
  const service = new HotkeyService({ settings, bus, log: nullLogger, registry, support: () => support, spawnHook: spawn, env: {}, now: () => clock });
  return { service, settings, bus, events, notices, hooks, registry, tick: (ms: number) => (clock += ms) };
}

test('toggle mode: the accelerator through the OS registry, each press a start then a stop', async () => {
  const r = await rig({ mode: 'toggle', toggle: 'CommandOrControl+Shift+Space' });
  assert.deepEqual(r.registry!.log, ['+CommandOrControl+Shift+Space']);
  r.registry!.press('CommandOrControl+Shift+Space');
  r.tick(500);
  r.registry!.press('CommandOrControl+Shift+Space');
  assert.deepEqual(r.events, ['toggle@1000', 'toggle@1500']);
  assert.deepEqual(r.service.status(), { mode: 'toggle', backend: 'shortcut', key: 'CommandOrControl+Shift+Space', problem: null });
  // The hook runs for Esc only: other keys do nothing, Esc cancels.
  const hook = r.hooks[0]!;
  hook.send({ type: 'ready' });
  r.registry!.press('CommandOrControl+Shift+Space');
  hook.send({ type: 'key', down: true, code: 'KeyA', at: 2000 });
  hook.send({ type: 'key', down: true, code: 'Escape', at: 2100 });
  assert.deepEqual(r.events, ['toggle@1000', 'toggle@1500', 'toggle@1500', 'cancel@2100']);
  r.service.dispose();
  assert.equal(hook.killed, true);
  assert.equal(r.registry!.owned.size, 0);
});

test('a chord another app owns is reported', async () => {
  const registry = new FakeRegistry();
  registry.taken.add('CommandOrControl+Shift+Space');
  const r = await rig({ mode: 'toggle' }, { kind: 'available' }, registry);
  assert.equal(r.notices.length, 1);
  assert.equal(r.notices[0]!.code, 'HOTKEY_UNAVAILABLE');
  assert.match(r.notices[0]!.message, /CommandOrControl\+Shift\+Space could not be registered: another application probably uses it/);
  assert.equal(r.service.status().backend, 'none');
});

test('push-to-talk: the hook times press and release; a chord is also owned in the registry', async () => {
  const r = await rig({ mode: 'push-to-talk', hold: 'Ctrl+Space' });
  assert.deepEqual(r.registry!.log, ['+CommandOrControl+Space'], 'owned, so it does not also reach the focused app');
  const hook = r.hooks[0]!;
  hook.send({ type: 'ready' });
  hook.send({ type: 'key', down: true, code: 'ControlLeft', at: 10 });
  hook.send({ type: 'key', down: true, code: 'Space', at: 12 });
  hook.send({ type: 'key', down: false, code: 'Space', at: 900 });
  assert.deepEqual(r.events, ['start@12', 'stop@900']);
  hook.send({ type: 'bogus' });
  hook.send({ type: 'key', down: 'yes', code: 1, at: 'x' });
  assert.deepEqual(r.events, ['start@12', 'stop@900'], 'malformed messages are ignored');
  assert.deepEqual(r.service.status(), { mode: 'push-to-talk', backend: 'key-hook', key: 'Ctrl+Space', problem: null });
});

test('push-to-talk where no app may read keys (Wayland): the toggle accelerator takes over, and it is said why', async () => {
  const support = hookSupport({ platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0', XDG_SESSION_TYPE: 'wayland' } });
  assert.equal(support.kind, 'unavailable');
  const r = await rig({ mode: 'push-to-talk', hold: 'RightCtrl' }, support);
  assert.equal(r.hooks.length, 0);
  assert.deepEqual(r.registry!.log, ['+CommandOrControl+Shift+Space']);
  assert.equal(r.notices.length, 1);
  assert.match(r.notices[0]!.message, /On Wayland no app may read the keyboard outside its own window/);
  assert.match(r.notices[0]!.message, /CommandOrControl\+Shift\+Space toggles dictation instead/);
  assert.match(r.notices[0]!.message, /GlobalShortcuts/);
  const status = r.service.status();
  assert.equal(status.backend, 'shortcut');
  assert.match(status.problem ?? '', /Wayland/);
  r.registry!.press('CommandOrControl+Shift+Space');
  assert.deepEqual(r.events, ['toggle@1000']);
});

test('XWayland: the hook runs, with the limit said once', async () => {
  const support = hookSupport({ platform: 'linux', env: { DISPLAY: ':0', WAYLAND_DISPLAY: 'wayland-0', XDG_SESSION_TYPE: 'wayland' } });
  assert.equal(support.kind, 'limited');
  const r = await rig({ mode: 'hybrid', hold: 'F8' }, support);
  assert.equal(r.hooks.length, 1);
  assert.equal(r.notices.length, 1);
  assert.match(r.notices[0]!.message, /only while an X11 app has the focus/);
  r.service.resume();
  assert.equal(r.notices.length, 1, 'a resume does not repeat it');
});

test('the hook dying is reported with its reason, and the toggle shortcut takes over; a stop on purpose is not', async () => {
  const r = await rig({ mode: 'push-to-talk', hold: 'F8' });
  r.hooks[0]!.send({ type: 'key', down: true, code: 'F8', at: 10 });
  r.hooks[0]!.exit(null, 'SIGABRT: xrecord_start [1024]: XOpenDisplay failure!');
  assert.equal(r.notices.length, 1);
  assert.match(r.notices[0]!.message, /Push-to-talk stopped working: the key hook stopped \(SIGABRT: xrecord_start \[1024\]: XOpenDisplay failure!\)\. CommandOrControl\+Shift\+Space toggles dictation instead/);
  assert.deepEqual(r.events, ['start@10', 'stop@1000'], 'the hold in progress ended');
  assert.deepEqual(r.registry!.log, ['+F8', '-F8', '+CommandOrControl+Shift+Space']);
  assert.equal(r.service.status().backend, 'shortcut');
  r.registry!.press('CommandOrControl+Shift+Space');
  assert.deepEqual(r.events, ['start@10', 'stop@1000', 'toggle@1000']);
  const r2 = await rig({ mode: 'push-to-talk', hold: 'F8' });
  r2.service.dispose();
  r2.hooks[0]!.exit(0, null);
  assert.equal(r2.notices.length, 0);
});

test('the hook process is told which keys to name: the hold key, the modifiers and Esc (toggle: Esc only)', async () => {
  const ptt = await rig({ mode: 'push-to-talk', hold: 'Ctrl+Space' });
  const watched = (ptt.hooks[0]!.env.PARAKEET_KEY_HOOK_WATCH ?? '').split(',').sort();
  assert.deepEqual(watched, ['AltLeft', 'AltRight', 'ControlLeft', 'ControlRight', 'Escape', 'MetaLeft', 'MetaRight', 'ShiftLeft', 'ShiftRight', 'Space']);
  const toggle = await rig({ mode: 'toggle' });
  assert.equal(toggle.hooks[0]!.env.PARAKEET_KEY_HOOK_WATCH, 'Escape');
  // Unwatched keys arrive as "Other": a lone modifier still tells a shortcut apart.
  const lone = await rig({ mode: 'push-to-talk', hold: 'RightCtrl', tapMs: 300 });
  lone.hooks[0]!.send({ type: 'key', down: true, code: 'ControlRight', at: 0 });
  lone.hooks[0]!.send({ type: 'key', down: true, code: 'Other', at: 80 });
  assert.deepEqual(lone.events, ['start@0', 'cancel@80']);
});

test('macOS without the permission says where to allow it', async () => {
  const support = hookSupport({ platform: 'darwin', env: {}, macTrusted: false });
  const r = await rig({ mode: 'push-to-talk', hold: 'RightAlt' }, support);
  assert.match(r.notices[0]!.message, /Privacy & Security → Accessibility/);
  assert.equal(hookSupport({ platform: 'darwin', env: {}, macTrusted: true }).kind, 'available');
  assert.equal(hookSupport({ platform: 'win32', env: {} }).kind, 'available');
  assert.match((hookSupport({ platform: 'linux', env: {} }) as { reason: string }).reason, /No graphical session/);
});

test('resume: a held key is released, the hook restarts, the shortcuts are registered again', async () => {
  const r = await rig({ mode: 'push-to-talk', hold: 'Ctrl+Space' });
  const first = r.hooks[0]!;
  first.send({ type: 'key', down: true, code: 'ControlLeft', at: 10 });
  first.send({ type: 'key', down: true, code: 'Space', at: 11 });
  r.tick(5000);
  r.service.resume();
  assert.deepEqual(r.events, ['start@11', 'stop@6000']);
  assert.equal(first.killed, true);
  assert.equal(r.hooks.length, 2);
  assert.deepEqual(r.registry!.log, ['+CommandOrControl+Space', '-CommandOrControl+Space', '+CommandOrControl+Space']);
  // Keys from the dead process are not heard; the new one's are.
  first.send({ type: 'key', down: true, code: 'Space', at: 7000 });
  r.hooks[1]!.send({ type: 'key', down: true, code: 'ControlLeft', at: 8000 });
  r.hooks[1]!.send({ type: 'key', down: true, code: 'Space', at: 8001 });
  assert.deepEqual(r.events, ['start@11', 'stop@6000', 'start@8001']);
});

test('a settings change reconfigures; sessions from the window keep the machine in step', async () => {
  const r = await rig({ mode: 'toggle' });
  await r.settings.set({ hotkey: { mode: 'hybrid', hold: 'F9', tapMs: 300 } });
  assert.deepEqual(r.registry!.log, ['+CommandOrControl+Shift+Space', '-CommandOrControl+Shift+Space', '+F9']);
  const hook = r.hooks.at(-1)!;
  // Started with the window's button: the next press stops it.
  r.bus.emit('dictation:state', { sessionId: 's1', state: 'listening', level: 0, notice: null });
  hook.send({ type: 'key', down: true, code: 'F9', at: 100 });
  hook.send({ type: 'key', down: false, code: 'F9', at: 150 });
  assert.deepEqual(r.events, ['stop@100']);
  r.bus.emit('dictation:state', { sessionId: 's1', state: 'stopped', level: 0, notice: null });
  hook.send({ type: 'key', down: true, code: 'F9', at: 1000 });
  assert.deepEqual(r.events, ['stop@100', 'start@1000']);
});

test('web mode (no registry): nothing global, said so', async () => {
  const r = await rig({ mode: 'toggle' }, { kind: 'available' }, null);
  assert.equal(r.service.status().backend, 'none');
  assert.match(r.service.status().problem ?? '', /window's own keys/);
  assert.equal(r.hooks.length, 0);
});

test('acceleratorOf: chords Electron can register; sided modifiers and lone modifiers cannot be', () => {
  const of = (text: string): string | null => {
    const parsed = parseChord(text);
    assert.ok(parsed.ok);
    return acceleratorOf(parsed.chord);
  };
  assert.equal(of('Ctrl+Shift+Space'), 'CommandOrControl+Shift+Space');
  assert.equal(of('Alt+Enter'), 'Alt+Return');
  assert.equal(of('Super+K'), 'Super+K');
  assert.equal(of('Ctrl+Up'), 'CommandOrControl+Up');
  assert.equal(of('F8'), 'F8');
  assert.equal(of('Ctrl+Num5'), 'CommandOrControl+num5');
  assert.equal(of('RightCtrl+Space'), null);
  assert.equal(of('RightCtrl'), null);
});

test('event clock: key times from the hook\'s own stamps, not from when a busy process got them', () => {
  const clock = new EventClock();
  // X server time 5000 ↔ epoch 1_000_000; the release arrives 400 ms late, stamped 120 ms after the press.
  assert.equal(clock.epochOf(5000, 1_000_000), 1_000_000);
  assert.equal(clock.epochOf(5120, 1_000_520), 1_000_120, 'a tap stays a tap');
  // A prompter delivery lowers the offset.
  assert.equal(clock.epochOf(6000, 1_000_990), 1_000_990);
  assert.equal(clock.epochOf(6100, 1_001_500), 1_001_090);
  // After sleep (the X clock stood still) the offset resets instead of dating events in the past.
  assert.equal(clock.epochOf(6200, 1_500_000), 1_500_000);
  assert.equal(clock.epochOf(Number.NaN, 7), 7);
});

test('a start the window could not make (no session within the timeout) does not leave the next press a stop', async () => {
  const settings = await SettingsStore.open(scratch('hotkey-service'), nullLogger);
  await settings.set({ hotkey: { mode: 'hybrid', hold: 'F8', tapMs: 300 } });
  const bus = new EventBus();
  const events: string[] = [];
  bus.on('dictation:hotkey', (e) => events.push(e.action));
  const { spawn, hooks } = fakeSpawner();
  const service = new HotkeyService({ settings, bus, log: nullLogger, registry: null, support: () => ({ kind: 'available' }), spawnHook: spawn, env: {}, startTimeoutMs: 30 });
  hooks[0]!.send({ type: 'key', down: true, code: 'F8', at: 0 });
  hooks[0]!.send({ type: 'key', down: false, code: 'F8', at: 50 }); // a tap: latched
  await new Promise((r) => setTimeout(r, 80));
  hooks[0]!.send({ type: 'key', down: true, code: 'F8', at: 1000 });
  assert.deepEqual(events, ['start', 'start']);
  service.dispose();
});

test('a hook that hangs while starting is ended after the timeout and reported; the toggle shortcut takes over', async () => {
  const settings = await SettingsStore.open(scratch('hotkey-service'), nullLogger);
  await settings.set({ hotkey: { mode: 'push-to-talk', hold: 'F8' } });
  const bus = new EventBus();
  const notices: Notice[] = [];
  bus.on('notice', (n) => notices.push(n));
  const { spawn, hooks } = fakeSpawner(false);
  const registry = new FakeRegistry();
  const service = new HotkeyService({ settings, bus, log: nullLogger, registry, support: () => ({ kind: 'available' }), spawnHook: spawn, env: {}, hookStartTimeoutMs: 30 });
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(hooks[0]!.killed, true);
  assert.equal(notices.length, 1);
  assert.match(notices[0]!.message, /Push-to-talk stopped working: the key hook did not start within 0.03 s \(xrecord_start \[1024\]: XOpenDisplay failure!\)/);
  assert.equal(service.status().backend, 'shortcut');
  service.dispose();
});
