// Closing the main window (app/main/window-close.ts): on macOS it hides until
// the app quits, so the page that owns the microphone survives for the hotkey
// and the tray; elsewhere it closes.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { hidesOnClose, keepWindowOnClose } from '../../../app/main/window-close.js';

/** A BrowserWindow stand-in: 'close' is cancellable as in Electron; closed unless prevented. */
class FakeWindow extends EventEmitter {
  hidden = false;
  closed = false;
  hide(): void {
    this.hidden = true;
  }
  clickClose(): void {
    let prevented = false;
    this.emit('close', { preventDefault: () => { prevented = true; } });
    if (!prevented) this.closed = true;
  }
}

test('macOS: the close button hides the window until the app quits', () => {
  let quitting = false;
  const win = new FakeWindow();
  keepWindowOnClose(win, 'darwin', () => quitting);
  win.clickClose();
  assert.deepEqual({ hidden: win.hidden, closed: win.closed }, { hidden: true, closed: false });
  quitting = true;
  win.hidden = false;
  win.clickClose();
  assert.deepEqual({ hidden: win.hidden, closed: win.closed }, { hidden: false, closed: true });
});

test('Windows and Linux: the close button closes (and the app quits with its last window)', () => {
  for (const platform of ['win32', 'linux'] as const) {
    const win = new FakeWindow();
    keepWindowOnClose(win, platform, () => false);
    win.clickClose();
    assert.deepEqual({ hidden: win.hidden, closed: win.closed }, { hidden: false, closed: true }, platform);
    assert.equal(hidesOnClose(platform, false), false);
  }
  assert.equal(hidesOnClose('darwin', false), true);
  assert.equal(hidesOnClose('darwin', true), false);
});
