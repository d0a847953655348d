// Playwright fixtures for web mode: a fresh web server (real services, real
// engine process, real addon) per test with the generated model, and a page
// opened on its tokenized URL. Console errors and CSP violations fail the test.
import { test as base, expect, type Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebServer, type WebServer, type WebServerOptions } from '../../../app/web/server.js';
import { MODEL_PATH, RENDERER_DIST } from './paths.js';

export interface ServerSetup {
  /** Load the generated model at start (default true). */
  withModel: boolean;
  /** More startWebServer options (download tests: modelEndpoint, extraCa). */
  extra: Partial<WebServerOptions>;
}

interface Fixtures {
  serverSetup: ServerSetup;
  server: WebServer;
  app: Page;
  /** Messages the page logged as errors (the app test fails on unexpected ones). */
  pageErrors: string[];
}

export const test = base.extend<Fixtures>({
  serverSetup: [{ withModel: true, extra: {} }, { option: true }],

  server: async ({ serverSetup }, use) => {
    const userDataDir = mkdtempSync(join(tmpdir(), 'parakeet-e2e-'));
    // The energy VAD: the specs play synthetic bursts, which are not speech to the trained Silero VAD.
    writeFileSync(join(userDataDir, 'settings.json'), JSON.stringify({ version: 1, settings: { dictation: { vadModel: 'energy' } } }));
    const server = await startWebServer({
      port: 0,
      userDataDir,
      rendererDir: RENDERER_DIST,
      engineMode: 'process',
      ...(serverSetup.withModel ? { modelPath: MODEL_PATH } : {}),
      ...serverSetup.extra,
      services: {
        retainSessionAudio: true,
        ...serverSetup.extra.services,
      },
    });
    try {
      await use(server);
    } finally {
      await server.close();
      rmSync(userDataDir, { recursive: true, force: true });
    }
  },

  pageErrors: async ({}, use) => {
    await use([]);
  },

  app: async ({ page, server, pageErrors }, use) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(server.url);
    await expect(page.getByRole('heading', { name: 'Dictate' })).toBeVisible();
    await use(page);
    // A CSP violation or an uncaught error is a bug even when the flow worked.
    expect(pageErrors.filter((e) => /Content Security Policy|Uncaught|TypeError|ReferenceError/.test(e))).toEqual([]);
  },
});

export { expect };
