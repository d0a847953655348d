// Settings › History: on/off and retention.
import type { Settings } from '../../../app/ipc/contract.js';
import { SETTINGS_LIMITS } from '../../../app/ipc/settings.js';
import { useApp } from '../../store/hooks.js';
import { Field, NumberInput, Toggle, type SectionProps } from './fields.js';

export function HistorySection({ draft, update }: SectionProps) {
  const app = useApp((s) => s.engine.app);
  const hist = (next: Partial<Settings['history']>) => update({ history: { ...draft.history, ...next } });
  return (
    <fieldset className="card">
      <legend>History</legend>
      <Toggle
        id="set-history"
        label="Keep a history of dictations and file transcripts"
        checked={draft.history.enabled}
        onChange={(v) => hist({ enabled: v })}
      />
      <p className="field-hint">
        Saved on this machine only{app ? ` (${app.userDataDir}/history)` : ''}. Off: nothing new is recorded; what is
        there stays until you delete it in History.
      </p>
      <Field id="set-keep-days" label="Delete entries older than (days)" hint="0 keeps them forever.">
        <NumberInput id="set-keep-days" value={draft.history.keepDays} limit={SETTINGS_LIMITS.keepDays} step={1} onChange={(v) => hist({ keepDays: v })} />
      </Field>
      <Field id="set-max-entries" label="Keep at most (entries)" hint="The oldest are deleted first, when you save and after each new entry.">
        <NumberInput id="set-max-entries" value={draft.history.maxEntries} limit={SETTINGS_LIMITS.maxEntries} step={1} onChange={(v) => hist({ maxEntries: v })} />
      </Field>
    </fieldset>
  );
}
