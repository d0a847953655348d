// The packaging configuration is valid for electron-builder (its own schema
// validation; packaging itself needs the Electron zip, unavailable here).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

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
