// Models: first-run proposal, downloads, installed models, import, catalog.
import { useEffect } from 'react';
import { useApp } from '../store/hooks.js';
import { loadAll } from '../store/commands.js';
import { CatalogList } from './models/CatalogList.js';
import { DownloadList } from './models/DownloadList.js';
import { FirstRunCard } from './models/FirstRunCard.js';
import { ImportForm } from './models/ImportForm.js';
import { InstalledList } from './models/InstalledList.js';

export function ModelsView() {
  const catalogLoaded = useApp((s) => s.models.catalog.length > 0);
  useEffect(() => {
    if (!catalogLoaded) void loadAll();
  }, [catalogLoaded]);
  return (
    <section className="view view-models" aria-labelledby="models-title">
      <header className="view-header">
        <h2 id="models-title">Models</h2>
        <p className="muted">Downloads are verified (size and SHA-256) and load-tested before they count as installed.</p>
      </header>
      <FirstRunCard />
      <DownloadList />
      <InstalledList />
      <ImportForm />
      <CatalogList />
    </section>
  );
}
