// First run: no model installed yet. Propose English dictation (110M hybrid,
// Q8_0) or multilingual (0.6B v3), with the download size shown before
// anything starts. On Dictate (`inline`), the download the user started here
// stays here: its progress, its retries and its error with Retry, instead of
// the card vanishing and coming back unchanged (issue 44 item 2).
import { useEffect, useState } from 'react';
import type { FirstRunProposal } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { DownloadItem } from './DownloadList.js';
import { formatBytes, formatLanguages } from '../../format.js';
import { downloadModel, loadFirstRun } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';

type FirstRunChoice = FirstRunProposal['choices'][number];

const KIND_TEXT: Record<FirstRunChoice['kind'], string> = {
  'english-dictation': 'English dictation (fast, small)',
  multilingual: 'Multilingual (25 European languages, larger)',
};

function sizeText(c: FirstRunChoice): string {
  if (c.bytes === null) return 'size unknown until the download starts';
  return c.bytesSource === 'catalog-estimate' ? `about ${formatBytes(c.bytes)}` : formatBytes(c.bytes);
}

const CLASS_TEXT = {
  fast: 'fast: either model runs live',
  fine: 'fine for the English model; the multilingual one runs slower than is comfortable for live text',
  slow: 'slow: live text will lag; files still work',
} as const;

/** What the quick measurement of this CPU says about each choice, in words. */
export function speedText(machine: NonNullable<FirstRunProposal['machine']>): string {
  return `This CPU, measured just now: ${machine.gflops} GFLOP/s on ${machine.threads} thread${machine.threads === 1 ? '' : 's'} — ${CLASS_TEXT[machine.speedClass]}.`;
}

/** The download of a proposed model that is running, waiting, paused or failed, if there is one. */
function useFirstRunDownload(proposal: FirstRunProposal | null) {
  const downloads = useApp((s) => s.models.downloads);
  if (!proposal) return null;
  const ids = new Set(proposal.choices.map((c) => c.catalogId));
  return Object.values(downloads).find((d) => ids.has(d.id) && d.state !== 'cancelled' && d.state !== 'installed') ?? null;
}

export function FirstRunCard({ inline = false }: { inline?: boolean }) {
  const proposal = useApp((s) => s.models.firstRun);
  const installedCount = useApp((s) => s.models.installed.length);
  const downloading = useApp((s) => Object.values(s.models.downloads).some((d) => d.state === 'downloading' || d.state === 'queued'));
  const started = useFirstRunDownload(proposal);
  const [choice, setChoice] = useState<FirstRunChoice['kind'] | null>(null);

  useEffect(() => {
    if (installedCount === 0 && !proposal) void loadFirstRun();
  }, [installedCount, proposal]);

  if (installedCount > 0 || !proposal) return null;
  if (inline && started) {
    return (
      <section className="card first-run" aria-labelledby="first-run-title" data-testid="first-run">
        <h3 id="first-run-title">Getting your model</h3>
        <ul className="downloads">
          <DownloadItem d={started} displayName={proposal.choices.find((c) => c.catalogId === started.id)?.displayName} />
        </ul>
      </section>
    );
  }
  // The Models view lists the download itself (DownloadList).
  if (downloading) return null;
  const selected = choice ?? proposal.recommended;
  const chosen = proposal.choices.find((c) => c.kind === selected) ?? proposal.choices[0];
  return (
    <section className="card first-run" aria-labelledby="first-run-title" data-testid="first-run">
      <h3 id="first-run-title">Get a model to start</h3>
      <fieldset>
        <legend>What will you use it for?</legend>
        {proposal.choices.map((c) => (
          <label key={c.kind} className="choice">
            <input type="radio" name="first-run" value={c.kind} checked={selected === c.kind} onChange={() => setChoice(c.kind)} />
            <span className="choice-text">
              <strong>{KIND_TEXT[c.kind]}</strong>
              <span className="muted">
                {c.displayName} · {sizeText(c)} · {formatLanguages(c.languages)} · {c.license.name}
                {proposal.machine ? ` · about ${proposal.machine.realTime[c.kind]}× real time on this CPU` : ''}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      {proposal.machine ? (
        <p className="field-hint" data-testid="machine-speed" data-class={proposal.machine.speedClass}>
          {speedText(proposal.machine)}
        </p>
      ) : null}
      {chosen ? (
        <Button variant="primary" onClick={() => void downloadModel(chosen.catalogId)} disabled={chosen.installed}>
          {chosen.installed ? 'Installed' : `Download ${chosen.displayName} (${sizeText(chosen)})`}
        </Button>
      ) : null}
    </section>
  );
}
