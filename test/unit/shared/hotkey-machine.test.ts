// The hotkey state machine and the hold-key grammar: every mode, chords and
// lone modifiers, auto-repeat, Esc, interruption by a shortcut, and staying in
// step with sessions started or ended elsewhere.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatChord, parseChord, type Chord } from '../../../app/shared/hotkey/chord.js';
import { HotkeyMachine, type HotkeyAction, type HotkeyMode } from '../../../app/shared/hotkey/hotkey-machine.js';

function chord(text: string): Chord {
  const parsed = parseChord(text);
  if (!parsed.ok) throw new Error(`${text}: ${parsed.reason}`);
  return parsed.chord;
}

function machine(mode: HotkeyMode, text: string, tapMs = 250): HotkeyMachine {
  return new HotkeyMachine({ mode, chord: chord(text), tapMs });
}

const types = (actions: HotkeyAction[]): string[] => actions.map((a) => `${a.type}@${a.at}:${a.reason}`);

/** Presses the codes in order at `at`, returns every action. */
function down(m: HotkeyMachine, at: number, ...codes: string[]): string[] {
  return codes.flatMap((c) => types(m.keyDown(c, at)));
}
function up(m: HotkeyMachine, at: number, ...codes: string[]): string[] {
  return codes.flatMap((c) => types(m.keyUp(c, at)));
}

describe('parseChord', () => {
  test('reads chords, function keys and lone modifiers into KeyboardEvent codes', () => {
    assert.deepEqual(chord('Ctrl+Shift+Space'), {
      modifiers: [{ group: 'ctrl', side: 'any' }, { group: 'shift', side: 'any' }],
      key: 'Space',
    });
    assert.deepEqual(chord('RightCtrl'), { modifiers: [{ group: 'ctrl', side: 'right' }], key: null });
    assert.deepEqual(chord('AltGr'), { modifiers: [{ group: 'alt', side: 'right' }], key: null });
    assert.deepEqual(chord('F8'), { modifiers: [], key: 'F8' });
    assert.deepEqual(chord('super+k'), { modifiers: [{ group: 'meta', side: 'any' }], key: 'KeyK' });
    assert.deepEqual(chord('LeftAlt+7'), { modifiers: [{ group: 'alt', side: 'left' }], key: 'Digit7' });
    assert.equal(chord('Pause').key, 'Pause');
  });

  test('refuses what would misfire or cannot be matched, saying why', () => {
    const reason = (text: unknown): string => {
      const r = parseChord(text);
      assert.equal(r.ok, false, String(text));
      return r.ok ? '' : r.reason;
    };
    assert.match(reason(''), /empty/);
    assert.match(reason(42), /empty/);
    assert.match(reason('A'), /needs a modifier/);
    assert.match(reason('Space'), /needs a modifier/);
    assert.match(reason('Ctrl+Escape'), /Esc/);
    assert.match(reason('Ctrl+Ctrl+A'), /repeats/);
    assert.match(reason('Hyper+A'), /"Hyper" is not a modifier/);
    assert.match(reason('Ctrl+Shift'), /ends in a modifier/);
    assert.match(reason('Ctrl+Banana'), /"Banana" is not a key/);
    assert.match(reason('Ctrl++'), /empty part/);
    assert.match(reason('x'.repeat(61)), /too long/);
  });

  test('formats the canonical spelling', () => {
    assert.equal(formatChord(chord('control+shift+space')), 'Ctrl+Shift+Space');
    assert.equal(formatChord(chord('rightctrl')), 'RightCtrl');
    assert.equal(formatChord(chord('cmd+num5')), 'Super+Num5');
    assert.equal(formatChord(chord('alt+up')), 'Alt+Up');
  });
});

describe('push-to-talk', () => {
  test('press starts, release stops, each with its key event time', () => {
    const m = machine('push-to-talk', 'Ctrl+Space');
    assert.deepEqual(down(m, 100, 'ControlLeft'), []);
    assert.deepEqual(down(m, 110, 'Space'), ['start@110:press']);
    assert.equal(m.phase, 'holding');
    assert.deepEqual(up(m, 900, 'Space'), ['stop@900:release']);
    assert.deepEqual(up(m, 910, 'ControlLeft'), []);
    assert.equal(m.phase, 'idle');
  });

  test('auto-repeat keydowns of the held key do nothing', () => {
    const m = machine('push-to-talk', 'F8');
    assert.deepEqual(down(m, 0, 'F8'), ['start@0:press']);
    for (let t = 500; t < 2000; t += 33) assert.deepEqual(down(m, t, 'F8'), []);
    assert.deepEqual(up(m, 2000, 'F8'), ['stop@2000:release']);
  });

  test('releasing a modifier of the chord first also stops', () => {
    const m = machine('push-to-talk', 'Ctrl+Shift+Space');
    down(m, 0, 'ShiftLeft', 'ControlRight');
    assert.deepEqual(down(m, 5, 'Space'), ['start@5:press']);
    assert.deepEqual(up(m, 700, 'ShiftLeft'), ['stop@700:release']);
    assert.deepEqual(up(m, 710, 'Space', 'ControlRight'), []);
  });

  test('the chord needs exactly its modifiers, on the side it names', () => {
    const m = machine('push-to-talk', 'Ctrl+Space');
    assert.deepEqual(down(m, 0, 'ControlLeft', 'AltLeft', 'Space'), [], 'Ctrl+Alt+Space is another shortcut');
    up(m, 10, 'Space', 'AltLeft', 'ControlLeft');
    assert.deepEqual(down(m, 20, 'Space'), [], 'Space alone');
    up(m, 30, 'Space');
    const sided = machine('push-to-talk', 'RightAlt+Space');
    assert.deepEqual(down(sided, 0, 'AltLeft', 'Space'), []);
    up(sided, 10, 'Space', 'AltLeft');
    assert.deepEqual(down(sided, 20, 'AltRight', 'Space'), ['start@20:press']);
  });

  test('Esc cancels; the release that follows does nothing', () => {
    const m = machine('push-to-talk', 'F8');
    down(m, 0, 'F8');
    assert.deepEqual(down(m, 300, 'Escape'), ['cancel@300:escape']);
    assert.deepEqual(up(m, 400, 'F8'), []);
    assert.deepEqual(up(m, 410, 'Escape'), []);
    assert.deepEqual(down(m, 500, 'Escape'), [], 'Esc with nothing running is left alone');
    assert.deepEqual(down(m, 600, 'F8'), ['start@600:press'], 'the next press starts again');
  });

  test('a press while dictation runs from the window stops it, and its release does nothing', () => {
    const m = machine('push-to-talk', 'F8');
    m.sessionChanged(true);
    assert.equal(m.phase, 'latched');
    assert.deepEqual(down(m, 0, 'F8'), ['stop@0:press']);
    assert.deepEqual(up(m, 400, 'F8'), []);
  });

  test('a lone modifier starts on press and is cancelled by a shortcut typed right after', () => {
    const m = machine('push-to-talk', 'Ctrl', 250);
    assert.deepEqual(down(m, 0, 'ControlLeft'), ['start@0:press']);
    assert.deepEqual(down(m, 120, 'KeyC'), ['cancel@120:interrupted'], 'Ctrl+C');
    assert.deepEqual(up(m, 150, 'KeyC', 'ControlLeft'), []);
    // Held long, a key typed later does not cancel (the user talks and presses something).
    assert.deepEqual(down(m, 1000, 'ControlLeft'), ['start@1000:press']);
    assert.deepEqual(down(m, 2000, 'KeyX'), []);
    assert.deepEqual(up(m, 2100, 'KeyX', 'ControlLeft'), ['stop@2100:release']);
  });

  test('a lone modifier does not start while another key is held', () => {
    const m = machine('push-to-talk', 'RightCtrl');
    assert.deepEqual(down(m, 0, 'KeyA', 'ControlRight'), []);
    up(m, 10, 'ControlRight', 'KeyA');
    assert.deepEqual(down(m, 20, 'ShiftLeft', 'ControlRight'), [], 'Shift+RightCtrl is not RightCtrl');
  });

  test('both sides of the modifier reported together (some X servers) count as one key', () => {
    const m = machine('push-to-talk', 'RightCtrl');
    assert.deepEqual(down(m, 0, 'ControlLeft', 'ControlRight'), ['start@0:press']);
    assert.deepEqual(up(m, 800, 'ControlLeft'), []);
    assert.deepEqual(up(m, 801, 'ControlRight'), ['stop@801:release']);
  });

  test('focus lost while held ends the hold', () => {
    const m = machine('push-to-talk', 'F8');
    down(m, 0, 'F8');
    assert.deepEqual(types(m.releaseAll(500)), ['stop@500:focus-lost']);
    assert.deepEqual(up(m, 600, 'F8'), []);
    assert.deepEqual(down(m, 700, 'F8'), ['start@700:press'], 'held keys were forgotten');
  });
});

describe('hybrid', () => {
  test('a tap latches, the next press stops', () => {
    const m = machine('hybrid', 'RightAlt', 300);
    assert.deepEqual(down(m, 0, 'AltRight'), ['start@0:press']);
    assert.deepEqual(up(m, 120, 'AltRight'), []);
    assert.equal(m.phase, 'latched');
    assert.deepEqual(down(m, 5000, 'AltRight'), ['stop@5000:press']);
    assert.deepEqual(up(m, 5100, 'AltRight'), []);
    assert.equal(m.phase, 'idle');
  });

  test('a hold talks until release', () => {
    const m = machine('hybrid', 'Ctrl+Space', 300);
    down(m, 0, 'ControlLeft');
    assert.deepEqual(down(m, 10, 'Space'), ['start@10:press']);
    assert.deepEqual(up(m, 310, 'Space'), ['stop@310:release'], 'held exactly the threshold: a hold');
  });

  test('Esc cancels a latched dictation', () => {
    const m = machine('hybrid', 'F9', 300);
    down(m, 0, 'F9');
    up(m, 50, 'F9');
    assert.deepEqual(down(m, 2000, 'Escape'), ['cancel@2000:escape']);
    assert.equal(m.phase, 'idle');
  });

  test('focus lost right after a tap-length press latches', () => {
    const m = machine('hybrid', 'F9', 300);
    down(m, 0, 'F9');
    assert.deepEqual(types(m.releaseAll(100)), []);
    assert.equal(m.phase, 'latched');
  });
});

describe('toggle', () => {
  test('a chord toggles on press', () => {
    const m = machine('toggle', 'Ctrl+Shift+Space');
    assert.deepEqual(down(m, 0, 'ControlLeft', 'ShiftLeft', 'Space'), ['start@0:press']);
    assert.deepEqual(up(m, 100, 'Space', 'ShiftLeft', 'ControlLeft'), []);
    assert.deepEqual(down(m, 1000, 'ControlLeft', 'ShiftLeft', 'Space'), ['stop@1000:press']);
  });

  test('a lone modifier toggles on release, timed from its press, unless another key came', () => {
    const m = machine('toggle', 'RightCtrl');
    assert.deepEqual(down(m, 0, 'ControlRight'), []);
    assert.deepEqual(up(m, 90, 'ControlRight'), ['start@0:press']);
    assert.deepEqual(down(m, 1000, 'ControlRight', 'KeyV'), []);
    assert.deepEqual(up(m, 1100, 'KeyV', 'ControlRight'), [], 'RightCtrl+V was a paste');
    assert.deepEqual(down(m, 2000, 'ControlRight'), []);
    assert.deepEqual(up(m, 2050, 'ControlRight'), ['stop@2000:press']);
  });

  test('tap() is a whole press (globalShortcut has no key-up)', () => {
    const m = machine('toggle', 'Ctrl+Shift+Space');
    assert.deepEqual(types(m.tap(5)), ['start@5:press']);
    assert.deepEqual(types(m.tap(9)), ['stop@9:press']);
    assert.deepEqual(types(machine('push-to-talk', 'F8').tap(0)), [], 'a tap has no hold');
  });
});

describe('in step with the sessions', () => {
  test('a session started in the window is stopped by the next press', () => {
    const m = machine('toggle', 'F8');
    m.sessionChanged(true);
    assert.deepEqual(down(m, 0, 'F8'), ['stop@0:press']);
  });

  test('a session ended elsewhere makes the next press a start', () => {
    const m = machine('hybrid', 'F8', 300);
    down(m, 0, 'F8');
    up(m, 50, 'F8');
    m.sessionChanged(true);
    m.sessionChanged(false); // the window's Stop
    assert.equal(m.phase, 'idle');
    assert.deepEqual(down(m, 1000, 'F8'), ['start@1000:press']);
  });

  test('the late end of a session we stopped does not undo the next one', () => {
    const m = machine('toggle', 'F8');
    assert.deepEqual(down(m, 0, 'F8'), ['start@0:press']);
    up(m, 10, 'F8');
    m.sessionChanged(true);
    assert.deepEqual(down(m, 100, 'F8'), ['stop@100:press']);
    up(m, 110, 'F8');
    m.sessionChanged(true); // finalizing, reported late: not a new session
    assert.equal(m.phase, 'idle');
    assert.deepEqual(down(m, 200, 'F8'), ['start@200:press']);
    up(m, 210, 'F8');
    m.sessionChanged(false); // the first session's end arrives now
    assert.equal(m.phase, 'latched', 'the second session still runs');
    assert.deepEqual(down(m, 300, 'F8'), ['stop@300:press']);
  });

  test('a session failing during a hold: the release still sends one stop', () => {
    const m = machine('push-to-talk', 'F8');
    down(m, 0, 'F8');
    m.sessionChanged(true);
    m.sessionChanged(false);
    assert.deepEqual(up(m, 500, 'F8'), ['stop@500:release']);
  });
});

test('memory stays bounded: held keys are a set, thousands of events later', () => {
  const m = machine('push-to-talk', 'F8');
  for (let i = 0; i < 10_000; i++) {
    m.keyDown(`Key${String.fromCharCode(65 + (i % 26))}`, i);
    m.keyUp(`Key${String.fromCharCode(65 + (i % 26))}`, i);
  }
  assert.deepEqual(down(m, 10_001, 'F8'), ['start@10001:press']);
});

test('a start that never became a session is forgotten: the next press starts again', () => {
  const m = machine('hybrid', 'F8', 300);
  down(m, 0, 'F8');
  up(m, 50, 'F8'); // latched, but the window could not start (no model)
  m.startFailed();
  assert.equal(m.phase, 'idle');
  assert.deepEqual(down(m, 1000, 'F8'), ['start@1000:press']);
  // A key still held keeps its hold: its release sends the stop.
  m.startFailed();
  assert.equal(m.phase, 'holding');
  assert.deepEqual(up(m, 2000, 'F8'), ['stop@2000:release']);
});
