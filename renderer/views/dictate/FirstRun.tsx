// First run, on the Dictate view while no model is loaded: three steps in order. 1) a model proposed for
// this use (size before anything starts; the download shows its speed and time left once it runs) or a
// local file; 2) a microphone test with a live level meter; 3) the keys that start and stop dictation;
// 4) where the text goes (insert mode, what this OS needs, a test field: InsertStep.tsx).
import { useEffect, useState } from 'react';
import { dictation } from '../../audio/dictation.js';
import { Button } from '../../components/Button.js';
import { ModelPicker } from '../../components/ModelPicker.js';
import * as actions from '../../store/actions.js';
import { useApp } from '../../store/hooks.js';
import { FirstRunCard } from '../models/FirstRunCard.js';
import { InsertStep } from './InsertStep.js';

const SHORTCUT_LABEL = 'Ctrl+Shift+Space';
/** A level above this while testing means the microphone hears something. */
const HEARD = 0.15;

function MicTest() {
  const [testing, setTesting] = useState(false);
  const level = useApp((s) => s.session.level);
  const mic = useApp((s) => s.session.micLabel);
  const armedByPreference = useApp((s) => s.session.armed);
  const [peak, setPeak] = useState(0);
  useEffect(() => {
    if (testing) setPeak((p) => Math.max(p, level));
  }, [testing, level]);
  // The header's recording chip shows while the test holds the microphone.
  useEffect(() => {
    actions.micTesting(testing);
    return () => actions.micTesting(false);
  }, [testing]);
  // Leaving the view ends the test (unless the user keeps the microphone open on Dictate anyway).
  useEffect(() => () => {
    if (testing && !armedByPreference) void dictation.disarm();
  }, [testing, armedByPreference]);
  const heard = peak >= HEARD;
  const verdict = !testing ? null : heard ? 'The microphone works: the bar moves when you speak.' : 'Speak now: the bar should move. If it stays empty, choose another input in Settings.';
  return (
    <div className="first-step-body">
      <div className="controls">
        <Button
          onClick={() => {
            if (testing) {
              setTesting(false);
              if (!armedByPreference) void dictation.disarm();
            } else {
              setPeak(0);
              setTesting(true);
              void dictation.arm();
            }
          }}
          data-testid="mic-test"
        >
          {testing ? 'Stop the microphone test' : 'Test the microphone'}
        </Button>
        {mic ? <span className="muted">{mic}</span> : null}
      </div>
      {verdict ? (
        <p className="field-hint" role="status" data-testid="mic-test-result" data-ok={String(heard)}>
          {verdict}
        </p>
      ) : null}
    </div>
  );
}

export function FirstRun() {
  const installed = useApp((s) => s.models.installed.length);
  const hotkey = useApp((s) => s.settings.values?.hotkey.toggle ?? null);
  const desktop = useApp((s) => s.engine.app?.mode === 'electron');
  return (
    <section className="card first-run-steps" aria-labelledby="first-run-steps-title" data-testid="first-run-steps">
      <h3 id="first-run-steps-title">Set up dictation</h3>
      <ol className="first-steps">
        <li data-testid="first-step-model">
          <strong>Get a model.</strong>{' '}
          {installed > 0 ? (
            <span>
              A model is installed: make it active in the{' '}
              <button type="button" className="link" onClick={() => actions.showView('models')}>
                Models view
              </button>
              .
            </span>
          ) : (
            <span className="muted">Proposed for dictation; nothing is downloaded until you press Download, which then shows its speed and time left.</span>
          )}
          {installed === 0 ? <FirstRunCard inline /> : null}
          <div className="first-step-local">
            <p className="muted">Or open a .gguf file you already have (used from where it is, not copied; it is listed under Models → Installed):</p>
            <ModelPicker idPrefix="dictate-picker" />
          </div>
        </li>
        <li data-testid="first-step-mic">
          <strong>Test the microphone</strong> (the input level meter above shows what it hears).
          <MicTest />
        </li>
        <li data-testid="first-step-hotkey">
          <strong>Start and stop with the keyboard:</strong> <kbd>{SHORTCUT_LABEL}</kbd> in this window
          {desktop && hotkey ? (
            <>
              , <kbd>{hotkey}</kbd> from any app
            </>
          ) : null}
          ; <kbd>Esc</kbd> cancels. Change the hotkey in Settings.
        </li>
        <li data-testid="first-step-insert">
          <strong>Put the text where you type.</strong> Each sentence goes to the app that has the cursor.
          <InsertStep />
        </li>
      </ol>
    </section>
  );
}
