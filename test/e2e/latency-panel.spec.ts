// The latency panel tells what a user lives (issue 44 item 6): "final after end of speech" counts from the
// last voiced frame, so it includes the pause that ends a sentence; no tile's text overflows its box.
import { expect, test } from './support/fixtures.js';

test('final after end of speech includes the closing pause; every tile fits its text', async ({ app, server }) => {
  const { pauseMs } = server.services.settings.get().dictation;
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  // Started from the keyboard: the key rows ("Key press to text inserted") get their long values too.
  await app.keyboard.press('Control+Shift+Space');
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(app.getByTestId('final').first()).toBeVisible({ timeout: 30_000 });
  await app.keyboard.press('Control+Shift+Space');
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');

  const final = app.getByTestId('latency-final').locator('dd');
  await expect(final).not.toHaveText('—');
  const text = (await final.textContent()) ?? '';
  const ms = text.endsWith(' ms') ? Number(text.replace(' ms', '')) : Number(text.replace(' s', '')) * 1000;
  expect(ms, `shown "${text}"; the pause alone is ${pauseMs} ms`).toBeGreaterThanOrEqual(pauseMs * 0.9);
  await expect(app.getByTestId('latency-key-inserted')).toContainText('not inserted');

  for (const width of [1180, 700]) {
    await app.setViewportSize({ width, height: 860 });
    const overflowing = await app.evaluate(() =>
      [...document.querySelectorAll('.latency .latency-row')]
        .filter((row) => row.scrollWidth > row.clientWidth + 1)
        .map((row) => row.getAttribute('data-testid')));
    expect(overflowing, `at ${width} px`).toEqual([]);
  }
});
