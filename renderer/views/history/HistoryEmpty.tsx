// What the History view says before there is anything in it: what is kept,
// where, that it never leaves the machine, and how to turn it off.
import * as actions from '../../store/actions.js';
import { useApp } from '../../store/hooks.js';

export function HistoryEmpty() {
  const dir = useApp((s) => s.engine.app?.userDataDir ?? null);
  const enabled = useApp((s) => s.settings.values?.history.enabled ?? true);
  return (
    <section className="card history-empty" aria-labelledby="history-empty-title" data-testid="history-empty">
      <h3 id="history-empty-title">Nothing here yet</h3>
      {enabled ? (
        <p>
          Each dictation and each transcribed file is saved here as you go: the text, its segments or words with
          their times, the model and the device that ran it. A dictation is saved sentence by sentence, so it is
          kept even if the app stops in the middle.
        </p>
      ) : (
        <p className="warn-text" data-testid="history-off">History is turned off: nothing new is recorded.</p>
      )}
      <p className="muted">
        Saved in <span className="mono">{dir ? `${dir}/history` : 'the history folder of the app data'}</span> on this
        machine only; it is never uploaded.
      </p>
      <p className="muted">
        How long entries are kept, and whether anything is recorded at all, is set in{' '}
        <button type="button" className="link" onClick={() => actions.showView('settings')}>
          Settings
        </button>
        .
      </p>
    </section>
  );
}
