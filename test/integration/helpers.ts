// Shared fixtures of the integration tests: generated random-weight models
// (real schema, real engine), scratch folders, a logger that stays quiet
// unless PARAKEET_TEST_LOG=1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionSummary } from '../../app/ipc/contract.js';
import { LogSink, createLogger, nullLogger, type Logger } from '../../app/main/log.js';
import { createServices, type Services, type ServicesOptions } from '../../app/main/services.js';
import { withEngineTriggers, type EngineTriggers } from '../support/engine-triggers.js';
import { RATE, frames } from '../support/audio/signals.js';
import { generateModel } from '../support/model/generate.js';
import type { Arch } from '../support/model/options.js';

/** A scratch folder removed when the test process exits (after every after() hook, services included). */
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `parakeet-it-${label}-`));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A tiny random-weight model in the real GGUF schema (~1 MB, loads in milliseconds). */
export function tinyModel(dir: string, arch: Arch = 'tdt', seed = 1): string {
  const path = join(dir, `tiny-${arch}-${seed}.gguf`);
  generateModel(path, { preset: 'tiny', arch, weightType: 'f32', seed });
  return path;
}

export function testLogger(dir: string): Logger {
  if (process.env.PARAKEET_TEST_LOG !== '1') return nullLogger;
  return createLogger(new LogSink({ dir, mirrorToStderr: true, level: 'debug' }));
}

export function waitFor<T>(subscribe: (resolve: (value: T) => void) => () => void, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let off = (): void => undefined;
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
    }, ms);
    off = subscribe((value) => {
      clearTimeout(timer);
      off();
      resolve(value);
    });
  });
}

/**
 * Settings for a test user-data folder, written before the services start. One engine thread: on a
 * 2-core machine shared with other work, ggml's spinning thread barrier makes 2-thread decodes of even a
 * tiny model swing from 10 ms to seconds; one thread keeps the tests' timing stable.
 */
export function writeTestSettings(userDataDir: string, settings: Record<string, unknown> = {}): void {
  // The energy VAD unless a test asks for Silero: these tests cut synthetic bursts, which are not speech to
  // a trained VAD (test/integration/silero-dictation.test.ts runs Silero on espeak-ng speech).
  const dictation = { vadModel: 'energy', ...(settings.dictation as Record<string, unknown> | undefined) };
  writeFileSync(join(userDataDir, 'settings.json'), JSON.stringify({ version: 1, settings: { threads: 1, ...settings, dictation } }));
}

/**
 * Plays 16 kHz audio into a new dictation session as 40 ms frames with their sample positions (a pause of
 * `frameDelayMs` between frames lets partials and finals run meanwhile), then stops it: the summary.
 */
export async function dictate(services: Services, audio: Float32Array, frameDelayMs: number, clientId = 'test'): Promise<SessionSummary> {
  const { sessionId } = services.sessions.start({ sampleRate: RATE }, clientId);
  let position = 0;
  for (const frame of frames(audio, 640)) {
    services.sessions.pushAudio(sessionId, frame, clientId, position);
    position += frame.length;
    await sleep(frameDelayMs);
  }
  return services.sessions.stop(sessionId, clientId);
}

/**
 * The real services in web mode with the engine in its own process, `modelPath` loaded (awaited), test hooks
 * on and no reachable download endpoint; `extra` overrides any of it.
 */
export async function startTestServices(userDataDir: string, modelPath: string, extra: Partial<ServicesOptions> = {}): Promise<TestServices> {
  const engine = withEngineTriggers();
  const services = await createServices({
    userDataDir,
    mode: 'web',
    engineMode: 'process',
    engineTransport: engine.transport,
    modelPath,
    modelEndpoint: 'https://127.0.0.1:9',
    logToStderr: process.env.PARAKEET_TEST_LOG === '1',
    ...extra,
  });
  await services.ready;
  return Object.assign(services, { triggers: engine.triggers });
}

/** The services with the engine's test triggers (test/support/engine-triggers.ts) beside them. */
export type TestServices = Services & { readonly triggers: EngineTriggers };
