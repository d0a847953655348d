// Installed (verified and loadable) models: size, type, licence; set active;
// delete with a second confirming press.
import { useState } from 'react';
import type { InstalledModel } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { formatBytes } from '../../format.js';
import { removeModel, setActiveModel } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';

function typeText(m: InstalledModel): string {
  const parts = [m.architecture, m.decoders.map((d) => d.toUpperCase()).join('/')];
  if (m.variant) parts.push(m.variant.toUpperCase());
  return parts.filter(Boolean).join(' · ');
}

/**
 * What deleting the active model does, said before it is done (issue 44 item 8): the one left becomes
 * active when there is exactly one (main activates a lone model), else none is loaded.
 */
export function afterActiveRemoval(removing: InstalledModel, installed: readonly InstalledModel[]): string {
  const rest = installed.filter((m) => m.id !== removing.id);
  return rest.length === 1 ? `${rest[0]!.displayName} becomes the active model.` : 'No model is loaded until you choose one with Use.';
}

interface RowProps {
  m: InstalledModel;
  active: boolean;
  loadedPath: string | null;
  installed: readonly InstalledModel[];
  onRemoved: (text: string) => void;
}

function InstalledRow({ m, active, loadedPath, installed, onRemoved }: RowProps) {
  const [confirming, setConfirming] = useState(false);
  const loaded = loadedPath !== null && loadedPath.endsWith(m.file);
  // A file the user opened is used from its place: leaving the list does not delete it.
  const linked = m.source.kind === 'linked';
  return (
    <tr data-testid="installed-row" data-id={m.id}>
      <th scope="row">
        <span className="device-name">{m.displayName}</span>
        <span className="device-desc" data-testid="installed-file">
          {linked ? `Used from where it is: ${m.file}` : m.file}
        </span>
      </th>
      <td>{formatBytes(m.bytes)}</td>
      <td>{typeText(m)}</td>
      <td>
        {m.license ? (
          <a href={m.license.url} target="_blank" rel="noreferrer">
            {m.license.spdx ?? m.license.name}
          </a>
        ) : (
          <span className="muted">{linked ? 'unknown (opened file)' : 'unknown (imported)'}</span>
        )}
      </td>
      <td>
        {active ? <span className="badge badge-active">Active{loaded ? ', loaded' : ''}</span> : null}
      </td>
      <td className="row-actions">
        {/* Visible word first, the model's name hidden after it: the name contains what is seen (axe). */}
        <Button disabled={active} onClick={() => void setActiveModel(m.id)}>
          {active ? 'Active' : 'Use'}
          <span className="visually-hidden"> {m.displayName}</span>
        </Button>
        {confirming ? (
          <>
            {active ? (
              <p className="inline-warning warn-text" role="alert" data-testid="delete-active-warning">
                {m.displayName} is the active model. {afterActiveRemoval(m, installed)}
              </p>
            ) : null}
            <Button
              variant="danger"
              onClick={() => {
                const next = active ? ` ${afterActiveRemoval(m, installed)}` : '';
                void removeModel(m.id).then((ok) => ok && onRemoved(`${linked ? 'Removed' : 'Deleted'} ${m.displayName}.${next}`));
              }}
            >
              {linked ? 'Remove from list' : 'Delete file'}
              <span className="visually-hidden"> of {m.displayName}</span>
            </Button>
            <Button variant="quiet" onClick={() => setConfirming(false)}>
              Keep
            </Button>
          </>
        ) : (
          <Button variant="quiet" onClick={() => setConfirming(true)}>
            {linked ? 'Remove' : 'Delete'}
            <span className="visually-hidden"> {m.displayName}</span>…
          </Button>
        )}
      </td>
    </tr>
  );
}

export function InstalledList() {
  const installed = useApp((s) => s.models.installed);
  // What the last delete did, said where it was done.
  const [removed, setRemoved] = useState<string | null>(null);
  const activeId = useApp((s) => s.models.activeId);
  const loadedPath = useApp((s) => s.engine.status?.model?.path ?? null);
  return (
    <section className="card" aria-labelledby="installed-title">
      <h3 id="installed-title">Installed</h3>
      {removed ? (
        <p className="inline-ok" role="status" data-testid="installed-outcome">
          {removed}
        </p>
      ) : null}
      {installed.length === 0 ? (
        <p className="muted">No models installed yet.</p>
      ) : (
        <div className="table-scroll">
        <table className="table" data-testid="installed-table">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Size</th>
              <th scope="col">Type</th>
              <th scope="col">Licence</th>
              <th scope="col">
                <span className="visually-hidden">State</span>
              </th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {installed.map((m) => (
              <InstalledRow key={m.id} m={m} active={m.id === activeId} loadedPath={loadedPath} installed={installed} onRemoved={setRemoved} />
            ))}
          </tbody>
        </table>
        </div>
      )}
    </section>
  );
}
