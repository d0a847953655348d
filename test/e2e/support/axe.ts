// axe-core (a dev dependency) on the page as it is: the serious and critical violations, one line per element.
// Shared by the accessibility spec (every view and theme) and the live-meeting check.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { REPO_ROOT } from './paths.js';

const AXE = join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js');

/** Serious and critical axe-core violations, one line per element: "rule (impact): target". */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!existsSync(AXE)) throw new Error(`axe-core is a dev dependency and must be installed (${AXE}): run npm install`);
  // Through the DevTools protocol, as a console would: a <script> tag (inline or from a file URL)
  // is refused by the app's strict CSP, which the spec also checks.
  const cdp = await page.context().newCDPSession(page);
  const loaded = await cdp.send('Runtime.evaluate', { expression: readFileSync(AXE, 'utf8') });
  await cdp.detach();
  if (loaded.exceptionDetails) throw new Error(`axe-core did not load: ${loaded.exceptionDetails.text}`);
  return page.evaluate(async () => {
    type Violation = { id: string; impact: string; nodes: { target: string[] }[] };
    const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: Violation[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
  });
}

