// Import a local .gguf (copied) or .nemo (converted) into the models folder, validated and listed.
// Electron offers the native dialog; a browser cannot reveal file paths, so
// web mode asks for one.
import { useState, type FormEvent } from 'react';
import { NEMO_DEFAULT_WEIGHTS, type NemoWeightType } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import * as actions from '../../store/actions.js';
import { cancelImport, importModel, pickModelFile } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';

/** The last import's outcome, right under the control that caused it. */
function ImportOutcome() {
  const outcome = useApp((s) => s.models.importOutcome);
  if (!outcome) return null;
  return (
    <p
      className={outcome.kind === 'error' ? 'inline-error' : 'inline-ok'}
      role={outcome.kind === 'error' ? 'alert' : 'status'}
      data-testid="import-outcome"
      data-kind={outcome.kind}
    >
      {outcome.text}
    </p>
  );
}

/** A .nemo being converted: how far, and a way to stop it. */
function ImportProgress() {
  const importing = useApp((s) => s.models.importing);
  const progress = useApp((s) => s.models.importProgress);
  if (importing === null || !/\.nemo$/i.test(importing)) return null;
  return (
    <div className="inline-form-row" data-testid="import-progress">
      <progress max={1} value={progress ?? 0} aria-label="Converting the .nemo" />
      <span role="status">{progress === null ? 'Reading the .nemo…' : `Converting… ${Math.floor(progress * 100)} %`}</span>
      <Button onClick={() => void cancelImport()}>Cancel</Button>
    </div>
  );
}

/** Q8_0 first: the default (contract.ts says why); each label says what the choice costs. */
const NEMO_WEIGHT_LABELS: readonly { value: NemoWeightType; label: string }[] = [
  { value: 'q8_0', label: 'Q8_0 — smallest and fastest, recommended' },
  { value: 'f16', label: 'F16 — half of F32, closer to the checkpoint' },
  { value: 'f32', label: 'F32 — the checkpoint unchanged, largest' },
];

/** How a .nemo's weights are stored when it is converted (a .gguf is imported as it is). */
function NemoWeightsField({ value, onChange, disabled }: { value: NemoWeightType; onChange: (v: NemoWeightType) => void; disabled: boolean }) {
  return (
    <div className="inline-form nemo-weights">
      <label htmlFor="import-nemo-weights">Weights of a converted .nemo</label>
      <select
        id="import-nemo-weights"
        value={value}
        disabled={disabled}
        aria-describedby="import-nemo-weights-hint"
        onChange={(e) => onChange(e.target.value as NemoWeightType)}
      >
        {NEMO_WEIGHT_LABELS.map((w) => (
          <option key={w.value} value={w.value}>
            {w.label}
          </option>
        ))}
      </select>
      <p className="field-hint" id="import-nemo-weights-hint">
        A .nemo is converted to a GGUF without Python, then checked by the engine&apos;s self-test. A .gguf is imported as it is.
      </p>
    </div>
  );
}

export function ImportForm() {
  const mode = useApp((s) => s.engine.mode ?? s.engine.app?.mode ?? 'web');
  const importing = useApp((s) => s.models.importing);
  const [path, setPath] = useState('');
  const [nemoWeights, setNemoWeights] = useState<NemoWeightType>(NEMO_DEFAULT_WEIGHTS);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (path.trim()) void importModel(path.trim(), nemoWeights);
  };
  return (
    <section className="card" aria-labelledby="import-title">
      <h3 id="import-title">Import a model file</h3>
      {/* Above the path and the button, so the outcome stays right under the control that caused it. */}
      <NemoWeightsField value={nemoWeights} onChange={setNemoWeights} disabled={importing !== null} />
      {mode === 'electron' ? (
        <Button
          disabled={importing !== null}
          onClick={async () => {
            const picked = await pickModelFile();
            if (picked) await importModel(picked, nemoWeights);
          }}
        >
          Choose a .gguf or .nemo file…
        </Button>
      ) : (
        <form className="inline-form" onSubmit={submit}>
          <label htmlFor="import-path">Path of a .gguf or .nemo file on this machine</label>
          <div className="inline-form-row">
            <input
              id="import-path"
              type="text"
              spellCheck={false}
              autoComplete="off"
              value={path}
              onChange={(e) => {
                setPath(e.target.value);
                // The message was about the path as it was; it is no longer true for this one.
                actions.importOutcome(null);
              }}
              placeholder="/home/me/Downloads/parakeet-tdt-0.6b-v3-q8_0.gguf"
            />
            <Button type="submit" disabled={importing !== null || !path.trim()}>
              {importing ? 'Importing…' : 'Import'}
            </Button>
          </div>
        </form>
      )}
      <ImportProgress />
      <ImportOutcome />
    </section>
  );
}
