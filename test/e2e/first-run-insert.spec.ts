// First run, step 4 (issue 12): where the text goes. On a private Xvfb display
// the server's inserter (real xdotool + xclip) and a headed Chromium showing
// the app share one X session, as on a Linux desktop: the step lists what this
// machine has, the paste mode is chosen, and the sample is pasted into the
// step's test field through the same OS path as a dictation — the field shows
// it arrived, and the result says the paste was read.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from '@playwright/test';
import { expect, test } from './support/fixtures.js';
import { CHROMIUM } from './support/paths.js';

const onPath = (tool: string): boolean => (process.env.PATH ?? '').split(':').some((d) => d && existsSync(`${d}/${tool}`));
const missing = ['Xvfb', 'xdotool', 'xclip'].filter((t) => !onPath(t));

/** A display number nobody uses (other test runs may have their own Xvfb). */
function freeDisplay(): number {
  for (;;) {
    const n = 300 + Math.floor(Math.random() * 600);
    if (!existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`)) return n;
  }
}
const DISPLAY = `:${freeDisplay()}`;
const X_ENV: NodeJS.ProcessEnv = { ...process.env, DISPLAY };
delete X_ENV.WAYLAND_DISPLAY;

test.skip(missing.length > 0 || process.platform !== 'linux', `needs Linux with ${missing.join(', ')} (apt-get install xvfb xdotool xclip)`);
test.use({ serverSetup: { withModel: false, extra: { services: { insertEnv: X_ENV } } } });

let xvfb: ChildProcess | null = null;
let browser: Browser | null = null;
test.afterAll(async () => {
  await browser?.close();
  xvfb?.kill();
});

test('the test field gets the sample pasted through the OS path, and the step says the paste was read', async ({ server }) => {
  xvfb = spawn('Xvfb', [DISPLAY, '-screen', '0', '1024x768x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  await expect.poll(() => existsSync(`/tmp/.X11-unix/X${DISPLAY.slice(1)}`), { timeout: 10_000 }).toBe(true);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: false, env: X_ENV, args: ['--no-sandbox', '--window-position=0,0', '--window-size=1000,760'] });
  const app = await browser.newPage();
  await app.goto(server.url);
  const step = app.getByTestId('first-step-insert');
  await expect(step.getByTestId('insert-summary')).toHaveAttribute('data-ready', 'true');
  await expect(step.getByTestId('insert-summary')).toContainText('X11');
  await expect(step.getByTestId('insert-needs')).toContainText('xdotool — found');
  // Saved at once (the radio shows the saved value, so it turns on when main has it).
  await step.getByLabel(/Paste at the cursor/).click();
  await expect.poll(() => server.services.settings.get().insert.mode).toBe('paste');
  await expect(step.getByLabel(/Paste at the cursor/)).toBeChecked();
  // No window manager: X's keyboard focus follows the pointer, so the pointer rests on the browser window.
  await new Promise<void>((resolve, reject) => {
    const move = spawn('xdotool', ['mousemove', '500', '400'], { env: X_ENV, stdio: 'ignore' });
    move.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`xdotool exited ${code}`))));
  });
  await step.getByTestId('insert-test').click();
  const result = step.getByTestId('insert-test-result');
  await expect(result).toHaveAttribute('data-ok', 'true', { timeout: 15_000 });
  await expect(step.getByTestId('insert-test-field')).toHaveValue('Parakeet inserted this.');
  await expect(result).toContainText('the focused window read the clipboard');
});
