// A real X11 target for insertion tests: a private Xvfb display and a headed
// Chromium on it showing one focused <textarea>. The tests type and paste into
// it with the real tools (xdotool, xclip) and read the textarea back.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';

const exec = promisify(execFile);
const CHROMIUM = process.env.PARAKEET_CHROMIUM ?? '/usr/bin/chromium';

function onPath(tool: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(`${dir}/${tool}`));
}

/** Why the X11 tests cannot run here, or null. .ci/run installs all of these. */
export function x11SkipReason(): string | null {
  if (process.platform !== 'linux') return 'X11 insertion is tested on Linux only';
  const missing = ['Xvfb', 'xdotool', 'xclip'].filter((t) => !onPath(t));
  if (!existsSync(CHROMIUM)) missing.push(CHROMIUM);
  return missing.length ? `missing ${missing.join(', ')} (apt-get install xvfb xdotool xclip chromium)` : null;
}

export interface X11Target {
  display: string;
  env: NodeJS.ProcessEnv;
  page: Page;
  value(): Promise<string>;
  /** Empties the textarea and gives it the keyboard focus again. */
  reset(): Promise<void>;
  readClipboard(): Promise<string>;
  writeClipboard(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts Xvfb on a free display (it picks the number: -displayfd) and waits until it accepts clients. */
export async function startXvfb(): Promise<{ xvfb: ChildProcess; display: string }> {
  // -noreset: the server would otherwise regenerate (refusing connections for a moment) whenever its last client leaves.
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-noreset', '-screen', '0', '1024x768x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  const display = await new Promise<string>((resolve, reject) => {
    let out = '';
    const fd3 = xvfb.stdio[3] as NodeJS.ReadableStream;
    fd3.setEncoding('utf8');
    fd3.on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(`:${out.trim()}`);
    });
    xvfb.on('exit', (code) => reject(new Error(`Xvfb exited (${code})`)));
    setTimeout(() => reject(new Error('Xvfb did not start in 10 s')), 10_000).unref();
  });
  return { xvfb, display };
}

export async function openX11Target(): Promise<X11Target> {
  const { xvfb, display } = await startXvfb();
  const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display };
  delete env.WAYLAND_DISPLAY;
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: false, env, args: ['--no-sandbox', '--window-position=0,0', '--window-size=800,600'] });
    const page = await browser.newPage();
    await page.setContent('<textarea id="t" style="position:fixed;inset:0;width:100%;height:100%" autofocus></textarea>');
    const focus = async (): Promise<void> => {
      // No window manager: X keyboard focus follows the pointer; a click also focuses the textarea in the page.
      await exec('xdotool', ['mousemove', '200', '200', 'click', '1'], { env });
      await page.focus('#t');
    };
    await focus();
    const b = browser;
    return {
      display,
      env,
      page,
      value: () => page.inputValue('#t'),
      async reset() {
        await page.fill('#t', '');
        await focus();
      },
      readClipboard: async () => (await exec('xclip', ['-selection', 'clipboard', '-out'], { env })).stdout,
      async writeClipboard(text) {
        await new Promise<void>((resolve, reject) => {
          const child = spawn('xclip', ['-selection', 'clipboard', '-in'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
          child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`xclip exited ${code}`))));
          child.stdin.end(text);
        });
      },
      async close() {
        await b.close().catch(() => undefined);
        xvfb.kill();
      },
    };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    xvfb.kill();
    throw error;
  }
}

/** Polls until `read` returns `expected` (typing is asynchronous in the target), or returns the last value. */
export async function settle(read: () => Promise<string>, expected: string, ms = 5000): Promise<string> {
  const end = Date.now() + ms;
  let value = await read();
  while (value !== expected && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}
