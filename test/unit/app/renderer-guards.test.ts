// The checks behind the Electron window and IPC adapters (which cannot run
// here without the Electron binary): our page only, microphone only, audio
// port messages well-formed; and the CSP both hosts send.
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { rendererCsp } from '../../../app/main/csp.js';
import { grantsPermission, isAppPage, isTrustedUrl, passesPermissionCheck, readPortFrame } from '../../../app/main/renderer-guards.js';

const where = { indexHtml: '/opt/parakeet/dist/renderer/index.html' };
const page = pathToFileURL(where.indexHtml).href;

test('only our renderer files (or the configured dev server) are trusted', () => {
  assert.equal(isTrustedUrl(page, where), true);
  assert.equal(isTrustedUrl(`${page}#/settings`, where), true);
  assert.equal(isTrustedUrl(pathToFileURL('/opt/parakeet/dist/renderer/assets/app.js').href, where), true);
  for (const url of [
    'file:///opt/parakeet/dist/renderer/../../secret.html',
    'file:///opt/parakeet/dist/renderer-evil/index.html',
    'file:///etc/passwd',
    'https://example.com/',
    'http://127.0.0.1:5173/',
    'not a url',
    undefined,
  ]) assert.equal(isTrustedUrl(url, where), false, String(url));
  const dev = { ...where, devUrl: 'http://127.0.0.1:5173/' };
  assert.equal(isTrustedUrl('http://127.0.0.1:5173/index.html', dev), true);
  assert.equal(isTrustedUrl('http://127.0.0.1:5174/', dev), false);
});

test('the app page is index.html (or the dev server), not the overlay next to it: IPC and events go to it only', () => {
  assert.equal(isAppPage(page, where), true);
  assert.equal(isAppPage(`${page}#/settings`, where), true);
  const overlay = pathToFileURL('/opt/parakeet/dist/renderer/overlay.html').href;
  assert.equal(isTrustedUrl(overlay, where), true, 'the overlay may stay on its page');
  assert.equal(isAppPage(overlay, where), false, 'but it has no preload and no listener');
  assert.equal(isAppPage('https://example.com/', where), false);
  assert.equal(isAppPage(undefined, where), false);
  assert.equal(isAppPage('http://127.0.0.1:5173/', { ...where, devUrl: 'http://127.0.0.1:5173/' }), true);
});

test('install folders with characters Chromium leaves raw in file URLs are still our page', () => {
  // Chromium shows "[", "]" and "~" unencoded in location.href; pathToFileURL encodes them.
  const odd = { indexHtml: "/opt/Apps [x64]/JOHNSM~1/d'ir é/dist/renderer/index.html" };
  assert.equal(isTrustedUrl("file:///opt/Apps%20[x64]/JOHNSM~1/d'ir%20%C3%A9/dist/renderer/index.html", odd), true);
  assert.equal(isTrustedUrl(pathToFileURL(odd.indexHtml).href, odd), true);
  assert.equal(isTrustedUrl('file:///opt/Apps%20[x64]/JOHNSM~1/other/index.html', odd), false);
  assert.equal(isTrustedUrl('file:///opt/parakeet/dist/renderer', where), false, 'the folder itself is not a page');
  assert.equal(isTrustedUrl('file:///opt/parakeet/dist/renderer/%2e%2e/secret.html', where), false);
});

test('the microphone and clipboard writes are the only permissions granted, and only to our page', () => {
  assert.equal(grantsPermission('clipboard-sanitized-write', [], page, where), true);
  assert.equal(grantsPermission('clipboard-sanitized-write', [], 'https://example.com/', where), false);
  assert.equal(passesPermissionCheck('media', 'audio', [page], where), true);
  assert.equal(passesPermissionCheck('media', 'video', [page], where), false);
  assert.equal(passesPermissionCheck('clipboard-sanitized-write', undefined, ['file:///', page], where), true);
  assert.equal(passesPermissionCheck('clipboard-read', undefined, [page], where), false);
  assert.equal(passesPermissionCheck('media', 'audio', ['https://example.com/', undefined], where), false);
  assert.equal(grantsPermission('media', ['audio'], page, where), true);
  assert.equal(grantsPermission('media', ['audio', 'video'], page, where), false);
  assert.equal(grantsPermission('media', ['video'], page, where), false);
  assert.equal(grantsPermission('media', [], page, where), false, 'no display capture without a loopback plan');
  assert.equal(grantsPermission('media', ['audio'], 'https://example.com/', where), false);
  for (const p of ['geolocation', 'notifications', 'clipboard-read', 'display-capture', 'openExternal']) {
    assert.equal(grantsPermission(p, ['audio'], page, where), false, p);
  }
});

test('getDisplayMedia (Electron 40: "media" with no mediaTypes; later: "display-capture") only for our page under a loopback plan', () => {
  const loopback = { displayCapture: true };
  const linux = { displayCapture: false };
  // web_contents_permission_helper.cc (v40.8.5) lists device types only: a display capture arrives as media + [].
  assert.equal(grantsPermission('media', [], page, where, loopback), true);
  assert.equal(grantsPermission('display-capture', [], page, where, loopback), true);
  assert.equal(grantsPermission('media', [], page, where, linux), false);
  assert.equal(grantsPermission('display-capture', [], page, where, linux), false);
  assert.equal(grantsPermission('media', [], 'https://example.com/', where, loopback), false);
  assert.equal(grantsPermission('display-capture', [], 'https://example.com/', where, loopback), false);
  // The camera stays refused under a loopback plan too.
  assert.equal(grantsPermission('media', ['video'], page, where, loopback), false);
  assert.equal(grantsPermission('media', ['audio', 'video'], page, where, loopback), false);
  assert.equal(grantsPermission('media', ['audio'], page, where, loopback), true);
  assert.equal(grantsPermission('geolocation', [], page, where, loopback), false);
});

test('audio port messages: a Float32Array or {frame, startSample}; anything else is refused', () => {
  const frame = new Float32Array(4);
  assert.deepEqual(readPortFrame(frame), { frame });
  assert.deepEqual(readPortFrame({ frame, startSample: 320 }), { frame, startSample: 320 });
  assert.deepEqual(readPortFrame({ frame }), { frame });
  for (const bad of [null, 1, 'x', [0.1], new Float64Array(2), { frame: [0.1] }, { frame, startSample: -1 }, { frame, startSample: 1.5 }, { frame, startSample: '0' }]) {
    assert.equal(readPortFrame(bad), null, JSON.stringify(bad));
  }
});

test('the renderer CSP: own files only, no inline script or eval, the bridge socket only where given', () => {
  const csp = rendererCsp({ bridgeOrigins: ['ws://127.0.0.1:4000'] });
  const directives = new Map(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
  assert.deepEqual(directives.get('default-src'), ["'self'"]);
  assert.deepEqual(directives.get('script-src'), ["'self'"]);
  assert.deepEqual(directives.get('object-src'), ["'none'"]);
  assert.deepEqual(directives.get('connect-src'), ["'self'", 'ws://127.0.0.1:4000']);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.deepEqual(new Map(rendererCsp().split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)])).get('connect-src'), ["'self'"]);
});

test('the renderer CSP with the dev server: inline script and style (Vite\'s refresh preamble, CSS modules) and its socket; never otherwise', () => {
  const directives = (csp: string): Map<string | undefined, string[]> => new Map(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
  const dev = directives(rendererCsp({ devServer: 'http://127.0.0.1:5173/' }));
  assert.deepEqual(dev.get('script-src'), ["'self'", "'unsafe-inline'"]);
  assert.deepEqual(dev.get('style-src'), ["'self'", "'unsafe-inline'"]);
  assert.deepEqual(dev.get('connect-src'), ["'self'", 'ws://127.0.0.1:5173']);
  assert.doesNotMatch(rendererCsp({ mediaSources: ['parakeet-media:'] }), /unsafe-inline|ws:/);
});

test("the renderer CSP's media-src: only the host's media source (no 'self', no blob:), 'none' without one", () => {
  const media = (csp: string): string[] | undefined => new Map(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)])).get('media-src');
  assert.deepEqual(media(rendererCsp()), ["'none'"]);
  assert.deepEqual(media(rendererCsp({ mediaSources: ['parakeet-media:'] })), ['parakeet-media:']);
  assert.deepEqual(media(rendererCsp({ mediaSources: ['http://127.0.0.1:4000/media/history/'] })), ['http://127.0.0.1:4000/media/history/']);
});
