// Accessibility of every view, light and dark (issue 11): text contrast (WCAG AA: 4.5:1, 3:1 for large
// text), accessible names that contain the visible label (label-content-name-mismatch), no hover-only
// information, the page title naming the view, and a layout that still works at 200 % text size.
// axe-core (a dev dependency) runs on every view and theme, in the first run (no model) and with content
// (installed models, a dictation, a transcribed file, an open History entry): any serious or critical
// violation fails (issue 44 item 12). The other checks are our own.
import type { Page } from '@playwright/test';
import { axeViolations } from './support/axe.js';
import { expect, test } from './support/fixtures.js';
import { MODEL_PATH, SPEECH_WAV } from './support/paths.js';

const VIEWS = [
  { key: 'Alt+1', name: 'Dictate' },
  { key: 'Alt+2', name: 'Files' },
  { key: 'Alt+3', name: 'History' },
  { key: 'Alt+4', name: 'Devices' },
  { key: 'Alt+5', name: 'Models' },
  { key: 'Alt+6', name: 'Settings' },
  { key: 'Alt+7', name: 'Meeting' },
] as const;

/** Text whose contrast against its effective background is below AA, as "text (ratio)". */
function lowContrast(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const parse = (c: string): [number, number, number, number] => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return [0, 0, 0, 0];
      const p = m[1]!.split(/[ ,/]+/).filter(Boolean).map(Number);
      return [p[0]!, p[1]!, p[2]!, p.length > 3 ? p[3]! : 1];
    };
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
    };
    const over = (top: number[], bottom: number[]) => {
      const a = top[3]!;
      return [0, 1, 2].map((i) => top[i]! * a + bottom[i]! * (1 - a)).concat(1);
    };
    const background = (el: Element | null): number[] => {
      const layers: number[][] = [];
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      let color = [255, 255, 255, 1];
      for (const layer of layers.reverse()) color = over(layer, color);
      return color;
    };
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set<Element>();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || seen.has(el) || !n.textContent?.trim()) continue;
      seen.add(el);
      const style = getComputedStyle(el);
      const rect = el.getBoundingClientRect();
      if (style.visibility === 'hidden' || rect.width === 0 || rect.height === 0 || Number(style.opacity) === 0) continue;
      if (el.closest('[disabled], [aria-disabled="true"], .skip-link, [aria-hidden="true"]')) continue;
      const fg = parse(style.color);
      const bg = background(el);
      const text = over(fg, bg);
      const [l1, l2] = [lum(text), lum(bg)].sort((a, b) => b - a);
      const ratio = (l1! + 0.05) / (l2! + 0.05);
      const size = parseFloat(style.fontSize);
      const bold = Number(style.fontWeight) >= 700;
      const large = size >= 24 || (bold && size >= 18.66);
      if (ratio < (large ? 3 : 4.5) - 0.01) out.push(`${n.textContent.trim().slice(0, 40)} (${ratio.toFixed(2)}:1, ${el.tagName.toLowerCase()}.${el.className})`);
    }
    return out;
  });
}

/** Controls whose accessible name (aria-label) does not contain their visible text. */
function nameMismatch(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
    const out: string[] = [];
    for (const el of document.querySelectorAll('button[aria-label], a[aria-label], [role="button"][aria-label], [role="radio"][aria-label]')) {
      const visible = norm((el as HTMLElement).innerText ?? '');
      const name = norm(el.getAttribute('aria-label') ?? '');
      if (visible && !name.includes(visible)) out.push(`"${visible}" named "${name}"`);
    }
    return out;
  });
}

/** Elements whose only explanation is a hover tooltip (title) with no text or description for a keyboard or screen reader user. */
function hoverOnly(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll('main [title]')) {
      if (el.getAttribute('aria-describedby') || el.getAttribute('aria-label')) continue;
      if (el.matches('abbr, iframe, input, select, textarea, button')) continue;
      out.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 30)}" title="${el.getAttribute('title')}"`);
    }
    return out;
  });
}

for (const scheme of ['light', 'dark'] as const) {
  test(`every view in ${scheme} mode: contrast, names that match their labels, no hover-only text, the title names the view`, async ({ app }) => {
    await app.emulateMedia({ colorScheme: scheme });
    await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
    const problems: string[] = [];
    for (const view of VIEWS) {
      await app.keyboard.press(view.key);
      await expect(app.getByRole('heading', { name: view.name, level: 2 })).toBeVisible();
      await expect(app).toHaveTitle(`${view.name} — Parakeet`);
      await app.waitForTimeout(150);
      for (const p of await lowContrast(app)) problems.push(`${view.name}: contrast ${p}`);
      for (const p of await nameMismatch(app)) problems.push(`${view.name}: label-content-name-mismatch ${p}`);
      for (const p of await hoverOnly(app)) problems.push(`${view.name}: hover-only ${p}`);
      for (const p of await axeViolations(app)) problems.push(`${view.name}: axe ${p}`);
    }
    expect(problems).toEqual([]);
  });
}

test('at 200 % text size the header and every view fit the window: nothing cut off, no sideways scrolling', async ({ app }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.evaluate(() => {
    document.documentElement.style.fontSize = '200%';
  });
  const problems: string[] = [];
  for (const view of VIEWS) {
    await app.keyboard.press(view.key);
    await expect(app.getByRole('heading', { name: view.name, level: 2 })).toBeVisible();
    const fit = await app.evaluate(() => {
      const header = document.querySelector('.app-header') as HTMLElement;
      const main = document.querySelector('#main') as HTMLElement;
      const clipped = [...document.querySelectorAll('main *')].filter((e) => {
        const el = e as HTMLElement;
        const s = getComputedStyle(el);
        // Visually hidden text (1 px, clipped on purpose) is for screen readers.
        return (s.overflowX === 'hidden' || s.overflow === 'hidden') && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 1;
      }).map((e) => e.className);
      return {
        page: document.documentElement.scrollWidth - window.innerWidth,
        header: header.scrollWidth - header.clientWidth,
        main: main.scrollWidth - main.clientWidth,
        clipped,
      };
    });
    if (fit.page > 1) problems.push(`${view.name}: the page scrolls sideways by ${fit.page} px`);
    if (fit.header > 1) problems.push(`${view.name}: the header overflows by ${fit.header} px`);
    if (fit.main > 1) problems.push(`${view.name}: the view overflows by ${fit.main} px`);
    for (const c of fit.clipped) problems.push(`${view.name}: .${c} cut off`);
  }
  expect(problems).toEqual([]);
});

test.describe('axe-core in the first run and with content', () => {
  test.use({ serverSetup: { withModel: false, extra: {} } });

  test('no serious or critical violation in any view, light or dark: no model yet, then with models, a dictation, a file and an open entry', async ({ app }) => {
    // Seven views, two themes, two states, axe on each: longer than one view's check.
    test.setTimeout(240_000);
    const problems: string[] = [];
    const scan = async (state: string, before?: (view: string) => Promise<void>) => {
      for (const scheme of ['light', 'dark'] as const) {
        await app.emulateMedia({ colorScheme: scheme });
        for (const view of VIEWS) {
          await app.keyboard.press(view.key);
          await expect(app.getByRole('heading', { name: view.name, level: 2 })).toBeVisible();
          await before?.(view.name);
          for (const p of await axeViolations(app)) problems.push(`${state}, ${scheme}, ${view.name}: ${p}`);
        }
      }
    };
    await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'no-model');
    await scan('no model');

    await app.keyboard.press('Alt+1');
    await app.getByLabel('Model file (.gguf) path on this machine').fill(MODEL_PATH);
    await app.getByRole('button', { name: 'Open model' }).click();
    await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
    await app.getByRole('button', { name: 'Start dictation' }).click();
    await expect(app.getByTestId('final').first()).toBeVisible({ timeout: 20_000 });
    await app.getByRole('button', { name: 'Stop' }).click();
    await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
    await app.keyboard.press('Alt+2');
    await app.getByLabel('Audio file path on this machine').fill(SPEECH_WAV);
    await app.getByRole('button', { name: 'Transcribe', exact: true }).click();
    await expect(app.getByTestId('file-result').getByTestId('file-text')).toBeVisible({ timeout: 30_000 });
    await scan('with content', async (view) => {
      if (view === 'History') await app.getByTestId('history-entry').first().click();
      if (view === 'History') await expect(app.getByTestId('history-detail')).toBeVisible();
    });
    expect(problems).toEqual([]);
  });
});
