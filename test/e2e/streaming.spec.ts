// Live dictation on cache-aware streaming models in web mode (generated models, the real engine process,
// the fake microphone playing the three sentences): partial text appears and only grows, the model's
// <EOU> ends utterances on its own (more finals than the pauses make), the latency preset is a setting,
// with its latency in figures (waiting for the chunk + the measured chunk compute), and a multilingual prompt
// model offers a language picker, in Dictate and in Settings, whose choice reaches each final.
import { expect, test } from './support/fixtures.js';
import { SENTENCES, STREAM_EOU_MODEL_PATH, STREAM_PROMPT_MODEL_PATH } from './support/paths.js';
import { TranscriptRecorder } from './support/session-check.js';

test.describe('an EOU-120M-like model', () => {
  test.use({ serverSetup: { withModel: false, extra: { modelPath: STREAM_EOU_MODEL_PATH } } });

  test('partials appear and only grow; <EOU> closes utterances between the pauses', async ({ app, server }) => {
    const recorder = new TranscriptRecorder(server);
    await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
    // No language picker: this model has no prompt.
    await expect(app.getByTestId('dictate-language')).toHaveCount(0);
    await app.getByRole('button', { name: 'Start dictation' }).click();
    await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
    await expect(app.getByTestId('partial')).toBeVisible({ timeout: 20_000 });
    // The three sentences are separated by pauses; this model also ends utterances by itself.
    await expect.poll(async () => app.getByTestId('final').count(), { timeout: 45_000 }).toBeGreaterThan(SENTENCES.length);
    const sessionId = await app.getByTestId('final').first().getAttribute('data-session');
    await app.getByRole('button', { name: 'Stop' }).click();
    await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
    const finals = recorder.finals(sessionId!);
    for (const f of finals) {
      const partials = recorder.partials(sessionId!, f.segmentId);
      for (let i = 1; i < partials.length; i++) expect(partials[i]!.startsWith(partials[i - 1]!)).toBe(true);
      if (partials.length) expect(f.text.startsWith(partials.at(-1)!)).toBe(true);
    }
    // Settings shows the preset's latency with the chunk compute this dictation measured (the session's own figure).
    const measured = server.services.sessions.get(sessionId!)?.latency().streamChunk;
    expect(measured?.chunkAudioMs).toBe(160);
    await app.getByTestId('nav-settings').click();
    const ms = (v: number): string => (v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(2)} s`);
    await expect(app.getByTestId('stream-preset-latency-figures')).toHaveText(
      `First text ≈ 80 ms waiting for the chunk (at most 160 ms) + ${ms(measured!.p50Ms)} compute = ≈ ${ms(80 + measured!.p50Ms)} after a word is spoken.`,
    );
    await expect(app.getByTestId('stream-preset-latency-source')).toHaveText(/^Measured in the last dictation: /);
  });

  test('the latency preset is a setting that shows the model\'s presets', async ({ app }) => {
    await app.getByTestId('nav-settings').click();
    const preset = app.locator('#set-stream-preset');
    await expect(preset).toBeVisible();
    await expect(preset.locator('option')).toHaveText([/Model default: 160 ms chunks/, /160 ms chunks \(70 frames of left context, 1 of look-ahead\)/]);
    // Before any dictation: the waiting part only; the accuracy cost is said to be unmeasured.
    await expect(app.getByTestId('stream-preset-latency-figures')).toHaveText(/^First text ≈ 80 ms waiting for the chunk \(at most 160 ms\) \+ the engine's compute per chunk\.$/);
    await expect(app.getByTestId('stream-preset-latency-source')).toHaveText(/^Compute not measured yet/);
    await expect(app.getByTestId('stream-preset-accuracy')).toHaveText(/^Accuracy cost: not measured\./);
  });
});

test.describe('a Nemotron-3.5-like model', () => {
  test.use({ serverSetup: { withModel: false, extra: { modelPath: STREAM_PROMPT_MODEL_PATH } } });

  test('a language can be picked in Dictate, and each final carries it', async ({ app, server }) => {
    const recorder = new TranscriptRecorder(server);
    await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
    const picker = app.getByTestId('dictate-language');
    // 'Auto' and the model's locales (its prompt dictionary's keys, in its order).
    await expect(picker.locator('option')).toHaveText(['Auto (detect)', 'en-US', 'de-DE', 'fr-FR', 'es-ES']);
    await picker.selectOption('de-DE');
    await expect(picker).toHaveValue('de-DE');
    await app.getByRole('button', { name: 'Start dictation' }).click();
    await expect(app.getByTestId('final').first()).toBeVisible({ timeout: 45_000 });
    const sessionId = await app.getByTestId('final').first().getAttribute('data-session');
    await app.getByRole('button', { name: 'Stop' }).click();
    await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
    const finals = recorder.finals(sessionId!).filter((f) => f.text.length > 0);
    expect(finals.length).toBeGreaterThan(0);
    for (const f of finals) expect(f.language === 'de-DE' || /^[a-z]{2}-[A-Z]{2}$/.test(f.language ?? '')).toBe(true);
    await expect(app.getByTestId('final-language').first()).toHaveText(/\[[a-z]{2}-[A-Z]{2}\]/);
  });

  test('Settings offers the same languages; the choice is saved, and is Dictate\'s too', async ({ app, server }) => {
    await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
    await app.getByTestId('nav-settings').click();
    const language = app.locator('#set-stream-language');
    await expect(language.locator('option')).toHaveText(['Auto', 'en-US', 'de-DE', 'fr-FR', 'es-ES']);
    await expect(language).toHaveValue('auto');
    await language.selectOption('fr-FR');
    await app.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => server.services.settings.get().streaming.language).toBe('fr-FR');
    // The presets of this model (Nemotron-3.5's [56, R]): 320 ms chunks by default.
    await expect(app.getByTestId('stream-preset-latency-figures')).toContainText('(at most 320 ms)');
    await app.getByTestId('nav-dictate').click();
    await expect(app.getByTestId('dictate-language')).toHaveValue('fr-FR');
  });
});
