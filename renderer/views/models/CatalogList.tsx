// The catalog: each published checkpoint with its languages and licence, and
// one download button per quantization with its size.
import type { CatalogEntry } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { formatBytes, formatLanguages } from '../../format.js';
import { downloadModel } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';

interface Group {
  slug: string;
  first: CatalogEntry;
  variants: CatalogEntry[];
}

function groups(catalog: CatalogEntry[]): Group[] {
  const map = new Map<string, Group>();
  for (const e of catalog) {
    const g = map.get(e.slug);
    if (g) g.variants.push(e);
    else map.set(e.slug, { slug: e.slug, first: e, variants: [e] });
  }
  return [...map.values()];
}

function VariantButton({ e, installed, busy }: { e: CatalogEntry; installed: boolean; busy: boolean }) {
  const size = e.approxBytes ? `~${formatBytes(e.approxBytes)}` : 'size unknown';
  const label = `${e.variant.toUpperCase()} · ${size}`;
  if (e.engineSupport !== 'supported') {
    return (
      <span className="variant variant-unsupported">
        {label}
        <span className="visually-hidden"> (listed for reference: the engine cannot run it yet)</span>
      </span>
    );
  }
  return (
    <Button
      className="variant"
      disabled={installed || busy}
      onClick={() => void downloadModel(e.id)}
      data-testid="catalog-download"
      data-id={e.id}
    >
      {/* The name starts with what is visible (label-content-name-mismatch): "Download <model>" is read first. */}
      <span className="visually-hidden">{installed ? `${e.displayName} ` : `Download ${e.displayName} `}</span>
      {installed ? `${e.variant.toUpperCase()} · installed` : label}
      {e.recommended ? <span className="badge badge-rec">recommended</span> : null}
    </Button>
  );
}

export function CatalogList() {
  const catalog = useApp((s) => s.models.catalog);
  const installed = useApp((s) => s.models.installed);
  const downloads = useApp((s) => s.models.downloads);
  const installedIds = new Set(installed.map((m) => m.id));
  return (
    <section className="card" aria-labelledby="catalog-title">
      <h3 id="catalog-title">Catalog</h3>
      <p className="muted">Files of mudler/parakeet-cpp-gguf. Sizes are estimates until the server confirms them.</p>
      <ul className="catalog">
        {groups(catalog).map((g) => (
          <li key={g.slug} className="catalog-item" data-testid="catalog-item" data-slug={g.slug}>
            <div className="catalog-head">
              <strong>{g.first.displayName}</strong>
              <span className="muted">
                {g.first.parameters} parameters · {g.first.architecture} · {formatLanguages(g.first.languages)} ·{' '}
                <a href={g.first.license.url} target="_blank" rel="noreferrer">
                  {g.first.license.spdx ?? g.first.license.name}
                </a>
                {g.first.engineSupport !== 'supported' ? ' · not supported yet' : ''}
              </span>
              <span className="catalog-use">{g.first.recommendedUse}</span>
            </div>
            <div className="variants">
              {g.variants.map((e) => {
                const d = downloads[e.id];
                const busy = d !== undefined && d.state !== 'failed' && d.state !== 'cancelled' && d.state !== 'installed';
                return <VariantButton key={e.id} e={e} installed={installedIds.has(e.id)} busy={busy} />;
              })}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
