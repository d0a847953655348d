// First run, step 4: text at the cursor. Shows what inserting needs on this
// machine (insert:check: tools, the macOS permission, what to install),
// offers the insert mode — paste at the cursor where it can work — and a test
// field in this window: the sample is inserted through the same OS path as a
// dictation, and the field shows whether it arrived (the only proof that
// counts; the tools cannot see it).
import { useEffect, useRef, useState } from 'react';
import type { InsertMode, InsertRequirements } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { checkInsert, saveSettings, testInsert } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';

const SAMPLE = 'Parakeet inserted this.';
/** Set once the first run has turned paste on, so a later "off" chosen by the user is never undone. */
const OFFERED_KEY = 'parakeet.insertOffered';
const ARRIVAL_MS = 3000;

const CHOICES: { value: InsertMode; label: string }[] = [
  { value: 'paste', label: 'Paste at the cursor in the app you use (recommended)' },
  { value: 'type', label: 'Type it as keystrokes (leaves the clipboard alone)' },
  { value: 'copy', label: 'Only copy it; I paste myself' },
  { value: 'off', label: 'Off: the text stays in Parakeet' },
];

type TestState = { kind: 'idle' } | { kind: 'running' } | { kind: 'done'; ok: boolean; text: string };

export function InsertStep() {
  const mode = useApp((s) => s.settings.values?.insert.mode ?? null);
  const [needs, setNeeds] = useState<InsertRequirements | null>(null);
  const [test, setTest] = useState<TestState>({ kind: 'idle' });
  const field = useRef<HTMLTextAreaElement>(null);
  const desktop = useApp((s) => s.engine.app?.mode === 'electron');
  useEffect(() => {
    void checkInsert().then(setNeeds);
  }, []);
  // Text at the cursor by default where it can work: the desktop app's first run turns paste on once, when
  // this machine has what it needs. (In web mode the focused app is on the server's display: only offered.)
  useEffect(() => {
    if (!desktop || !needs?.modes.includes('paste') || mode !== 'off') return;
    if (localStorage.getItem(OFFERED_KEY)) return;
    localStorage.setItem(OFFERED_KEY, '1');
    void saveSettings({ insert: { mode: 'paste' } });
  }, [desktop, needs, mode]);

  const runTest = async () => {
    const el = field.current;
    if (!el) return;
    el.value = '';
    el.focus();
    setTest({ kind: 'running' });
    const result = await testInsert({ text: SAMPLE, intoOwnWindow: true });
    if (!result.ok) return setTest({ kind: 'done', ok: false, text: `It did not work: ${result.error.message}` });
    // The keys or the paste are handled by this page asynchronously: wait for the text to show up.
    const end = Date.now() + ARRIVAL_MS;
    while (!el.value.includes(SAMPLE) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    const arrived = el.value.includes(SAMPLE);
    const how = result.value.detail ?? '';
    setTest(arrived
      ? { kind: 'done', ok: true, text: `It works: the sample arrived in the field (${result.value.delivered ?? result.value.mode}). ${how}` }
      : { kind: 'done', ok: false, text: `Nothing arrived in the field. ${how}` });
  };

  return (
    <div className="first-step-body" data-testid="insert-step">
      {needs ? (
        <>
          <p className="field-hint" data-testid="insert-summary" data-ready={String(needs.ready)}>{needs.summary}</p>
          {needs.items.length ? (
            <ul className="insert-needs" data-testid="insert-needs">
              {needs.items.map((item) => (
                <li key={item.name} data-ok={String(item.ok)}>
                  <span aria-hidden="true">{item.ok ? '✓' : item.optional ? '○' : '✗'}</span> <strong>{item.name}</strong>
                  {item.ok ? ' — found' : item.optional ? ' — optional, not found' : ' — missing'}: {item.purpose}.
                  {item.fix ? <> <span className="mono">{item.fix}</span></> : null}
                </li>
              ))}
            </ul>
          ) : null}
        </>
      ) : (
        <p className="field-hint">Checking what this machine needs…</p>
      )}
      <div role="radiogroup" aria-label="Where dictated text goes">
        {CHOICES.map((c) => {
          const possible = c.value === 'off' || !needs || needs.modes.includes(c.value);
          return (
            <div className="toggle" key={c.value}>
              <input id={`first-insert-${c.value}`} type="radio" name="first-insert" checked={mode === c.value} disabled={!possible}
                onChange={() => void saveSettings({ insert: { mode: c.value } })} />
              <label htmlFor={`first-insert-${c.value}`}>
                {c.label}
                {possible ? '' : ' — not available here yet'}
              </label>
            </div>
          );
        })}
      </div>
      <div className="field">
        <label htmlFor="insert-test-field">Test field</label>
        <textarea id="insert-test-field" ref={field} rows={2} data-testid="insert-test-field" aria-describedby="insert-test-result" />
        <div className="controls">
          <Button onClick={() => void runTest()} disabled={test.kind === 'running' || needs?.platform === null} data-testid="insert-test">
            {test.kind === 'running' ? 'Inserting…' : 'Insert a sample into the test field'}
          </Button>
        </div>
        <p className="field-hint" role="status" id="insert-test-result" data-testid="insert-test-result"
          data-ok={test.kind === 'done' ? String(test.ok) : undefined}>
          {test.kind === 'done' ? test.text : 'Uses the mode chosen above, through the same path as a dictation.'}
        </p>
      </div>
    </div>
  );
}
