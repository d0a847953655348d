// First run (issue 11): with no model, Dictate walks through the set-up (a proposed model with its size,
// a microphone test with a live level, the keys), and Start says why it cannot be pressed yet.
import { expect, test } from './support/fixtures.js';

test.use({ serverSetup: { withModel: false, extra: {} } });

test('no model: set-up steps, a microphone test that hears the fake microphone, the keys; Start says why it is off', async ({ app }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'no-model');
  const start = app.getByTestId('record');
  await expect(start).toBeDisabled();
  await expect(app.getByTestId('record-why')).toHaveText('Start needs a model: get one in step 1 below.');
  await expect(start).toHaveAttribute('aria-describedby', 'record-why');
  await expect(app.getByTestId('session-status')).toContainText('Not ready');

  const steps = app.getByTestId('first-run-steps');
  await expect(steps).toBeVisible();
  // 1: a proposed model with its size before anything downloads.
  const proposal = steps.getByTestId('first-run');
  await expect(proposal.getByRole('radio', { name: /English dictation/ })).toBeChecked();
  await expect(proposal.getByRole('button', { name: /^Download .*(MB|kB|GB)/ })).toBeVisible();
  // Measured on this CPU by the engine, with what it means for each choice.
  await expect(proposal.getByTestId('machine-speed')).toContainText(/This CPU, measured just now: [\d.]+ GFLOP\/s on \d+ threads?/);
  await expect(proposal.getByText(/about [\d.]+× real time on this CPU/).first()).toBeVisible();
  // 2: the microphone test opens the (fake) microphone and the level meter moves.
  await steps.getByTestId('mic-test').click();
  await expect(steps.getByTestId('mic-test-result')).toHaveAttribute('data-ok', 'true', { timeout: 20_000 });
  await expect(steps.getByTestId('mic-test-result')).toContainText('The microphone works');
  await steps.getByTestId('mic-test').click();
  // 3: the keys.
  await expect(steps.getByTestId('first-step-hotkey')).toContainText('Ctrl+Shift+Space');
  await expect(steps.getByTestId('first-step-hotkey')).toContainText('Esc');
});

test('the first run\'s microphone test shows the recording chip while it holds the microphone', async ({ app }) => {
  const chip = app.getByTestId('recording-chip');
  await expect(chip).toHaveCount(0);
  await app.getByTestId('mic-test').click();
  await expect(chip).toHaveAttribute('data-source', 'mic-test');
  await expect(chip).toHaveText('Microphone on · testing');
  await app.getByTestId('mic-test').click();
  await expect(chip).toHaveCount(0);
});
