// Settings: audio processing is off by default, and a saved change reaches
// the main process's settings.
import { expect, test } from './support/fixtures.js';

test('settings show the defaults and save a change', async ({ app, server }) => {
  await app.getByTestId('nav-settings').click();
  await expect(app.getByLabel('Echo cancellation')).not.toBeChecked();
  await expect(app.getByLabel('Noise suppression')).not.toBeChecked();
  await expect(app.getByLabel('Automatic gain')).not.toBeChecked();
  await expect(app.getByLabel('Engine mode')).toHaveValue('process');
  const save = app.getByRole('button', { name: 'Save settings' });
  await expect(save).toBeDisabled();

  const pause = app.getByLabel('Pause that ends a sentence (ms)');
  await pause.fill('750');
  await app.getByLabel('Noise suppression').check();
  await save.click();
  await expect(save).toBeDisabled();
  const saved = server.services.settings.get();
  expect(saved.dictation.pauseMs).toBe(750);
  expect(saved.audio.noiseSuppression).toBe(true);
  expect(saved.audio.echoCancellation).toBe(false);
});

test('About: Copy diagnostics gives the report with the ggml build and the CPU', async ({ app }) => {
  await app.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await app.getByTestId('nav-settings').click();
  await app.getByRole('button', { name: 'Copy diagnostics' }).click();
  await expect(app.getByRole('button', { name: 'Copied' })).toBeVisible();
  const text = await app.evaluate(() => navigator.clipboard.readText());
  expect(text).toContain('ggml');
  expect(text).toContain('CPU (cpu, backend CPU)');
  expect(text).toContain('[log: last');
});

test('a save with one bad field keeps and saves the good edits; the error sits next to its field, in words, and no banner', async ({ app, server }) => {
  await app.getByTestId('nav-settings').click();
  const threads = app.getByLabel('CPU threads');
  const pause = app.getByLabel('Pause that ends a sentence (ms)');
  const mirror = app.getByLabel('Mirror endpoint (https)');
  await threads.fill('64');
  await pause.fill('900');
  await mirror.fill('http://mirror.example.org');
  // Checked while typing: the error next to the mirror field, a warning next to threads on this machine.
  await expect(app.getByTestId('set-mirror-error')).toContainText('must use https://');
  await expect(mirror).toHaveAttribute('aria-invalid', 'true');
  const cpus = await app.evaluate(() => navigator.hardwareConcurrency);
  if (cpus < 64) await expect(app.getByTestId('set-threads-warning')).toContainText(`This machine has ${cpus} hardware thread`);
  await app.getByRole('button', { name: 'Save settings' }).click();
  await expect(app.getByTestId('save-outcome')).toContainText('Not saved: Mirror endpoint');
  const saved = server.services.settings.get();
  expect(saved.threads).toBe(64);
  expect(saved.dictation.pauseMs).toBe(900);
  expect(saved.mirrorEndpoint).toBe(null);
  // The form still shows every edit, the refused one included; no banner anywhere.
  await expect(threads).toHaveValue('64');
  await expect(pause).toHaveValue('900');
  await expect(mirror).toHaveValue('http://mirror.example.org');
  await expect(app.getByTestId('notice')).toHaveCount(0);
  // After a reload the form shows what is saved, and the message is gone.
  await app.reload();
  await app.getByTestId('nav-settings').click();
  await expect(app.getByLabel('CPU threads')).toHaveValue('64');
  await expect(app.getByLabel('Mirror endpoint (https)')).toHaveValue('');
  await expect(app.getByTestId('set-mirror-error')).toHaveCount(0);
  await expect(app.getByTestId('notice')).toHaveCount(0);
});

// Dictation text options (issue 12): the spoken commands are listed, a repeated replacement is named next to
// the list and held back while the other text options are saved, a fixed list is saved.
test('the spoken commands are listed; a repeated replacement is named and held back, the rest is saved', async ({ app, server }) => {
  await app.getByTestId('nav-settings').click();
  await app.getByText('What you can say').click();
  const commands = app.getByTestId('spoken-commands');
  await expect(commands).toContainText('“new paragraph”');
  await expect(commands).toContainText('“question mark”');
  await app.getByLabel('Spoken punctuation and line breaks (English)').check();
  await app.getByRole('button', { name: 'Add a replacement' }).click();
  await app.getByLabel('Spoken words 1').fill('parakeet desktop');
  await app.getByLabel('Written text 1').fill('Parakeet Desktop');
  await app.getByRole('button', { name: 'Add a replacement' }).click();
  await app.getByLabel('Spoken words 2').fill('Parakeet  Desktop');
  await app.getByLabel('Written text 2').fill('PD');
  await expect(app.getByTestId('set-replacements-error')).toHaveText('Replacement 2 repeats replacement 1 ("parakeet desktop").');
  await app.getByRole('button', { name: 'Save settings' }).click();
  await expect.poll(() => server.services.settings.get().text.spokenPunctuation).toBe(true);
  expect(server.services.settings.get().text.replacements).toEqual([]);
  await app.getByRole('button', { name: 'Remove 2' }).click();
  await expect(app.getByTestId('set-replacements-error')).toHaveCount(0);
  await app.getByRole('button', { name: 'Save settings' }).click();
  await expect.poll(() => server.services.settings.get().text.replacements).toEqual([{ from: 'parakeet desktop', to: 'Parakeet Desktop' }]);
});

// Issue 44 item 7: the Save bar stays in view while the form scrolls, names the fields that hold a save
// back, and each name jumps to its field with the focus in it.
test('the sticky Save bar names the fields in error and jumps to them', async ({ app }) => {
  await app.getByTestId('nav-settings').click();
  const threads = app.getByLabel('CPU threads');
  await threads.fill('0.5');
  await expect(app.getByTestId('set-threads-error')).toBeVisible();
  // Scrolled to the top, far from the end of the form: the bar is on screen, Save off, the reason beside it.
  await app.evaluate(() => {
    document.querySelector('#main')?.scrollTo(0, 0);
    window.scrollTo(0, 0);
  });
  const bar = app.getByTestId('save-bar');
  const box = await bar.boundingBox();
  const viewport = app.viewportSize()!;
  expect(box && box.y >= 0 && box.y + box.height <= viewport.height + 1, `bar at ${JSON.stringify(box)} in ${viewport.height} px`).toBe(true);
  await expect(bar.getByRole('button', { name: 'Save settings' })).toBeDisabled();
  const held = bar.getByTestId('save-held');
  await expect(held).toHaveText('Fix this field to save it: CPU threads.');
  await expect(bar.getByRole('button', { name: 'Save settings' })).toHaveAttribute('aria-describedby', 'save-held');

  // The mirror field is far down; its name in the bar brings it into view with the focus in it.
  await app.getByLabel('Mirror endpoint (https)').fill('http://mirror.example.org');
  await app.evaluate(() => {
    document.querySelector('#main')?.scrollTo(0, 0);
    window.scrollTo(0, 0);
  });
  await expect(held).toHaveText('Fix these 2 fields to save them: CPU threads, Mirror endpoint.');
  await held.getByRole('button', { name: 'Mirror endpoint' }).click();
  await expect(app.getByLabel('Mirror endpoint (https)')).toBeFocused();
  await expect(app.getByLabel('Mirror endpoint (https)')).toBeInViewport();
  await held.getByRole('button', { name: 'CPU threads' }).click();
  await expect(threads).toBeFocused();
  await expect(threads).toBeInViewport();
});

// Custom vocabulary (issue 45): the phrase list in its file format, a count, a bad weight named and held back,
// the fixed list saved where dictation and files read it.
test('the vocabulary box counts phrases, names a bad weight and saves the fixed list', async ({ app, server }) => {
  await app.getByTestId('nav-settings').click();
  const box = app.getByLabel('Phrases the recognizer favours (names, jargon, numbers)');
  await box.fill('Parakeet Desktop\nfour two seven\t2\n');
  await expect(app.getByTestId('set-vocabulary-count')).toContainText('2 of at most 1000 phrases');
  await box.fill('Parakeet Desktop\nfour two seven\tlots\n');
  await expect(app.getByTestId('set-vocabulary-error')).toHaveText('line 2: the weight after the TAB is "lots"; write a positive number (1 = the default bonus)');
  await box.fill('Parakeet Desktop\nfour two seven\t2\n');
  await expect(app.getByTestId('set-vocabulary-error')).toHaveCount(0);
  await app.getByRole('button', { name: 'Save settings' }).click();
  await expect.poll(() => server.services.settings.get().text.vocabulary).toEqual([
    { phrase: 'Parakeet Desktop', weight: 1 }, { phrase: 'four two seven', weight: 2 },
  ]);
});

// Per phrase, whether the active model can spell it (vocabulary:check against the engine's loaded model).
test('the vocabulary card checks each phrase against the loaded model and says why one cannot be used', async ({ app }) => {
  await app.getByTestId('nav-settings').click();
  await app.getByLabel('Phrases the recognizer favours (names, jargon, numbers)').fill('the\nfour two seven\t2\n€uro\n');
  const checks = app.getByTestId('vocabulary-phrase-check');
  await expect(checks).toHaveCount(3);
  await expect(checks.nth(0)).toHaveAttribute('data-usable', 'yes');
  await expect(checks.nth(0)).toContainText('\u2581the');
  await expect(checks.nth(2)).toHaveAttribute('data-usable', 'no');
  await expect(checks.nth(2)).toContainText("not used: the character '€' is not in the model's vocabulary");
  await expect(app.getByTestId('set-vocabulary-check-summary')).toContainText(/of 3 phrases tokenize with .+ \(its piece list/);
});

test('Speakers: a typed speaker model and "the microphone too" are saved; "No speaker model" clears the model', async ({ app, server }) => {
  await app.getByTestId('nav-settings').click();
  const model = app.getByLabel('Speaker model (Sortformer GGUF, full path)');
  const microphone = app.getByLabel(/Tell apart the people on the microphone too/);
  await expect(model).toHaveValue('');
  await expect(microphone).not.toBeChecked();
  // Web mode has no file dialog: the path is typed (Electron adds Choose…, the .gguf dialog).
  await expect(app.getByRole('button', { name: 'Choose…' })).toHaveCount(0);
  const save = app.getByRole('button', { name: 'Save settings' });
  await model.fill('/models/sortformer.gguf');
  await microphone.check();
  await save.click();
  await expect(save).toBeDisabled();
  expect(server.services.settings.get().diarizerPath).toBe('/models/sortformer.gguf');
  expect(server.services.settings.get().diarizeMicrophone).toBe(true);

  await app.getByRole('button', { name: 'No speaker model' }).click();
  await expect(model).toHaveValue('');
  await save.click();
  await expect(save).toBeDisabled();
  expect(server.services.settings.get().diarizerPath).toBe(null);
});

test('the lowest word confidence stays offered with the energy detector (it drops words from dictation, meetings and files either way)', async ({ app, server }) => {
  await app.getByTestId('nav-settings').click();
  const floor = app.getByLabel('Lowest word confidence');
  await expect(floor).toBeVisible();
  await app.getByLabel('Voice activity detector').selectOption('energy');
  // Silero's own settings go with it; the floor does not (it was hidden while still dropping words).
  await expect(app.getByLabel('Speech probability threshold')).toHaveCount(0);
  await expect(floor).toBeVisible();
  await expect(app.getByText(/dropped from dictation, meetings and files, whichever detector is chosen/)).toBeVisible();
  await floor.fill('0.4');
  await app.getByRole('button', { name: 'Save settings' }).click();
  await expect(app.getByRole('button', { name: 'Save settings' })).toBeDisabled();
  const saved = server.services.settings.get().dictation;
  expect([saved.vadModel, saved.minWordConfidence]).toEqual(['energy', 0.4]);
});
