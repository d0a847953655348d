// The packaging configuration is valid for electron-builder (its own schema
// validation; packaging itself needs the Electron zip, unavailable here), and
// holds what a packaged app needs at run time: macOS entitlements and usage
// strings, the .deb's dependencies, signing only from the environment.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { signingPlan } from '../../scripts/signing-plan.mjs';

const require = createRequire(import.meta.url);

test('electron-builder.yml passes electron-builder validation and ships the engine outside asar', async () => {
  const { load } = require('js-yaml') as { load: (text: string) => Record<string, unknown> };
  const config = load(readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8'));
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
    validateConfiguration: (config: unknown, logger: unknown) => Promise<void>;
  };
  const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
  await validateConfiguration(config, new DebugLogger(false));
  const resources = config.extraResources as { from: string; to: string; filter: string[] }[];
  assert.ok(resources.some((r) => r.from === 'native/build/Release' && r.to === 'native' && r.filter.includes('*.node')));
  assert.ok((config.asarUnpack as string[]).includes('node_modules/uiohook-napi/**'), 'the key hook\'s addon is outside asar');
  assert.ok((config.asarUnpack as string[]).includes('dist/vad/**'), 'the bundled Silero VAD is outside asar (the engine reads it with file I/O)');
  const mac = config.mac as { extendInfo: Record<string, string> };
  assert.match(mac.extendInfo.NSMicrophoneUsageDescription, /never leaves/);
});

test('an invalid configuration is rejected', async () => {
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
    validateConfiguration: (config: unknown, logger: unknown) => Promise<void>;
  };
  const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
  await assert.rejects(validateConfiguration({ appId: 'x', notAnOption: true }, new DebugLogger(false)));
});

test('package.json names an author with an e-mail (electron-builder refuses a .deb without a maintainer)', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { author?: { name?: string; email?: string } };
  assert.ok(pkg.author?.name);
  assert.match(pkg.author?.email ?? '', /^[^@\s]+@[^@\s]+$/);
});

interface BuilderConfig {
  mac: { extendInfo: Record<string, string>; entitlements: string; entitlementsInherit: string; hardenedRuntime: boolean; notarize: boolean };
  deb: { depends: string[] };
}

function builderConfig(): BuilderConfig {
  const { load } = require('js-yaml') as { load: (text: string) => unknown };
  return load(readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8')) as BuilderConfig;
}

test('macOS: the hardened runtime may use the microphone and send Apple Events (osascript), and says why', () => {
  const { mac } = builderConfig();
  assert.equal(mac.hardenedRuntime, true);
  assert.equal(mac.notarize, true, 'notarized where the environment has the credentials');
  assert.match(mac.extendInfo.NSAppleEventsUsageDescription ?? '', /System Events/);
  assert.match(mac.extendInfo.NSAudioCaptureUsageDescription ?? '', /sound output/);
  for (const file of [mac.entitlements, mac.entitlementsInherit]) {
    const plist = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    for (const key of ['com.apple.security.device.audio-input', 'com.apple.security.automation.apple-events', 'com.apple.security.cs.allow-jit']) {
      assert.match(plist, new RegExp(`<key>${key.replaceAll('.', '\\.')}</key>\\s*<true/>`), `${file}: ${key}`);
    }
  }
});

test(".deb: electron-builder's own dependencies kept, plus what the key hook and Electron load", () => {
  const { deb } = builderConfig();
  // `depends` replaces the defaults (FpmTarget), so every default must be listed again.
  const { default: FpmTarget } = require('app-builder-lib/out/targets/FpmTarget') as { default: { prototype: { getDefaultDepends(target: string): string[] } } };
  for (const dep of FpmTarget.prototype.getDefaultDepends.call(null, 'deb')) assert.ok(deb.depends.includes(dep), `default ${dep}`);
  for (const dep of ['libxt6', 'libxrandr2', 'libgbm1']) assert.ok(deb.depends.includes(dep), dep);
  assert.ok(deb.depends.some((d) => d.split(' | ').includes('libasound2')), 'libasound2 (or libasound2t64)');
});

test("the key hook's Linux addon needs exactly the X libraries the .deb names", { skip: process.platform !== 'linux' && 'reads an ELF file with readelf' }, () => {
  const addon = require.resolve('uiohook-napi/prebuilds/linux-x64/uiohook-napi.node');
  const needed = [...execFileSync('readelf', ['-d', addon], { encoding: 'utf8' }).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
  const packageOf: Record<string, string> = { 'libX11.so.6': 'libgtk-3-0', 'libXrandr.so.2': 'libxrandr2', 'libXtst.so.6': 'libxtst6', 'libXt.so.6': 'libxt6', 'libc.so.6': 'libc6' };
  const { deb } = builderConfig();
  for (const lib of needed) {
    assert.ok(lib && packageOf[lib], `a package is known for ${lib}`);
    if (lib !== 'libc.so.6' && lib !== 'libX11.so.6') assert.ok(deb.depends.includes(packageOf[lib]!), `${lib} → ${packageOf[lib]}`);
  }
});

test('package.json has a homepage (electron-builder refuses a .deb without one)', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { homepage?: string };
  assert.match(pkg.homepage ?? '', /^https:\/\//);
});

test('signing and notarization only with identities from the environment; otherwise skipped with a note', () => {
  const none = signingPlan({}, 'darwin');
  assert.deepEqual({ sign: none.sign, notarize: none.notarize }, { sign: false, notarize: false });
  assert.deepEqual(none.overrides, ['-c.mac.identity=null', '-c.mac.notarize=false']);
  assert.match(none.notes.join(' '), /not signed \(no CSC_LINK or CSC_NAME/);
  const signedOnly = signingPlan({ CSC_LINK: '/secure/cert.p12', CSC_KEY_PASSWORD: 'x' }, 'darwin');
  assert.deepEqual({ sign: signedOnly.sign, notarize: signedOnly.notarize, overrides: signedOnly.overrides }, { sign: true, notarize: false, overrides: ['-c.mac.notarize=false'] });
  assert.match(signedOnly.notes.join(' '), /not notarized \(set APPLE_API_KEY/);
  const full = signingPlan({ CSC_NAME: 'Developer ID Application: X', APPLE_API_KEY: 'k.p8', APPLE_API_KEY_ID: 'id', APPLE_API_ISSUER: 'iss' }, 'darwin');
  assert.deepEqual({ sign: full.sign, notarize: full.notarize, notes: full.notes, overrides: full.overrides }, { sign: true, notarize: true, notes: [], overrides: [] });
  assert.equal(signingPlan({ APPLE_ID: 'a@b.c', APPLE_APP_SPECIFIC_PASSWORD: 'p', CSC_NAME: 'x' }, 'darwin').notarize, false, 'APPLE_TEAM_ID missing');
  assert.match(signingPlan({}, 'win32').notes.join(' '), /Windows: not signed/);
  assert.equal(signingPlan({ WIN_CSC_LINK: 'c.pfx' }, 'win32').sign, true);
});
