// Dictation text options (issue 12, item 5) in web mode (the Settings form's
// part is in settings.spec.ts). Dictation with the trained digits model: a replacement list rewrites the
// spoken digit words in the finals the view shows, in what the bus carried and
// in the history entry, while each final keeps the engine's own words as
// spokenText and words whose times are the engine's.
import { existsSync, readFileSync } from 'node:fs';
import type { TranscriptEvent } from '../../app/ipc/contract.js';
import type { Concatenation } from '../support/audio/digits.js';
import { DIGITS_MODEL } from '../support/audio/digits.js';
import { expect, test } from './support/fixtures.js';
import { CHROMIUM, chromiumArgs, DIGITS_MIC_JSON, DIGITS_MIC_WAV } from './support/paths.js';

test.skip(!existsSync(DIGITS_MODEL), `the trained test model is not at ${DIGITS_MODEL} (set PARAKEET_DIGITS_MODEL)`);
test.use({
  serverSetup: { withModel: false, extra: { modelPath: DIGITS_MODEL } },
  launchOptions: { executablePath: CHROMIUM, args: chromiumArgs(DIGITS_MIC_WAV) },
});

test('replacements rewrite the spoken words in the finals, the view and the history; spokenText keeps the engine\'s', async ({ app, server }) => {
  const spoken = JSON.parse(readFileSync(DIGITS_MIC_JSON, 'utf8')) as Concatenation;
  const DIGIT: Record<string, string> = { zero: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', oh: '0' };
  await server.services.settings.set({
    dictation: { preRollMs: 0 },
    text: { replacements: Object.entries(DIGIT).map(([from, to]) => ({ from, to })) },
  });
  const finals: TranscriptEvent[] = [];
  const off = server.services.bus.on('dictation:transcript', (e) => e.kind === 'final' && finals.push(e));
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByRole('button', { name: 'Start dictation' }).click();
  await expect(app.getByTestId('final')).toHaveCount(3, { timeout: 30_000 });
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  off();

  const written = spoken.parts.map((p) => p.text.split(' ').map((w) => DIGIT[w]).join(' '));
  expect((await app.getByTestId('final').allTextContents()).map((t) => t.trim())).toEqual(written);
  expect(finals.map((f) => f.text)).toEqual(written);
  expect(finals.map((f) => f.spokenText)).toEqual(spoken.parts.map((p) => p.text));
  // One word per digit, each with the engine's own times (inside its segment, in order).
  for (const f of finals) {
    expect(f.words.map((w) => w.text).join(' ')).toBe(f.text);
    f.words.forEach((w, i) => {
      expect(w.start).toBeGreaterThanOrEqual(f.start - 1e-6);
      expect(w.end).toBeLessThanOrEqual(f.end + 0.1);
      if (i > 0) expect(w.start).toBeGreaterThanOrEqual(f.words[i - 1]!.start);
    });
  }
  await app.getByTestId('nav-history').click();
  await app.getByTestId('history-entry').first().click();
  await expect(app.getByTestId('history-detail').getByTestId('history-text')).toHaveText(written.join(' '));
});
