// The overlay's placement per platform (app/main/tray/overlay-placement.ts):
// macOS floats it over full-screen apps without hiding the Dock and the menu
// bar; native Wayland, which ignores placement, does not show it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  OVERLAY_HEIGHT, OVERLAY_WIDTH, overlayBounds, overlayUnavailable, overlayWindowType, overlayWorkspaceOptions,
} from '../../../app/main/tray/overlay-placement.js';

test('macOS: visible over full-screen apps only with skipTransformProcessType, so the Dock and the menu bar stay', () => {
  // native_window_mac.mm (v40.8.5): visibleOnFullScreen without skipTransformProcessType calls DockHide().
  const options = overlayWorkspaceOptions('darwin');
  assert.deepEqual(options, { visibleOnFullScreen: true, skipTransformProcessType: true });
  // Without the process transform, the panel type is what floats the window over full-screen apps.
  assert.equal(overlayWindowType('darwin'), 'panel');
  assert.equal(overlayWindowType('linux'), undefined);
  assert.equal(overlayWindowType('win32'), undefined);
  assert.deepEqual(overlayWorkspaceOptions('linux'), {});
  assert.equal(overlayWorkspaceOptions('win32'), null, 'the call does nothing on Windows');
});

test('bottom centre of the work area', () => {
  assert.deepEqual(overlayBounds({ x: 0, y: 25, width: 1440, height: 875 }), { x: 540, y: 25 + 875 - OVERLAY_HEIGHT - 24, width: OVERLAY_WIDTH, height: OVERLAY_HEIGHT });
  assert.equal(overlayBounds({ x: 1920, y: 0, width: 1001, height: 1080 }).x, 1920 + Math.round((1001 - OVERLAY_WIDTH) / 2));
});

test('native Wayland cannot place the overlay (Electron ≥ 38 is a Wayland client there unless --ozone-platform=x11)', () => {
  const wayland = { XDG_SESSION_TYPE: 'wayland', WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' };
  assert.match(overlayUnavailable({ platform: 'linux', env: wayland, ozonePlatform: '' }) ?? '', /not shown on Wayland.*--ozone-platform=x11/);
  assert.equal(overlayUnavailable({ platform: 'linux', env: wayland, ozonePlatform: 'x11' }), null, 'XWayland places it');
  assert.equal(overlayUnavailable({ platform: 'linux', env: { XDG_SESSION_TYPE: 'x11', DISPLAY: ':0' }, ozonePlatform: '' }), null);
  assert.notEqual(overlayUnavailable({ platform: 'linux', env: { DISPLAY: ':0' }, ozonePlatform: 'wayland' }), null);
  assert.equal(overlayUnavailable({ platform: 'darwin', env: wayland, ozonePlatform: '' }), null);
});
