// history:media — the sources a player may load for an entry, with their URLs
// (media-url.ts) and lengths. The files are checked as the media request
// checks them, so a source listed here plays.
import type { HistoryMedia, HistoryMediaSource } from '../../ipc/contract.js';
import { partsOf, sourcesOf } from './entry-sources.js';
import type { MediaHistory } from './media-request.js';
import type { MediaTarget } from './media-url.js';
import { WavSource } from './wav-source.js';

export async function historyMedia(history: MediaHistory, id: string, urlFor: (target: MediaTarget) => string): Promise<HistoryMedia> {
  const entry = await history.audioOf(id);
  const sources: HistoryMediaSource[] = [];
  for (const plan of sourcesOf(entry)) {
    const source = await WavSource.open(await partsOf(entry, plan.source, history.audioDirOf(id)));
    const durationSec = source.durationSec;
    await source.close();
    sources.push({ source: plan.source, label: plan.label, url: urlFor({ entryId: id, source: plan.source }), offsetSec: plan.offsetSec, durationSec });
  }
  return { sources };
}
