// Where the renderer's <audio> element finds an entry's audio, one shape for
// both hosts: `<base>/<entry id>/<source>.wav`, base being
// `parakeet-media://history` in Electron (a privileged scheme only our
// session has, media-protocol.ts) and `/media/history` on the web server
// (app/web/media.ts; with the per-start media key in the query, because any
// local process can reach a loopback port). The path names an entry and a
// source, never a file: which file plays is read from the entry's own track
// records (entry-audio.ts).
import type { HistoryMediaSourceName } from '../../ipc/contract.js';
import { HISTORY_ID } from '../../ipc/validate.js';

export const MEDIA_SCHEME = 'parakeet-media';
export const MEDIA_HOST = 'history';
/** The web server's prefix for media requests. */
export const WEB_MEDIA_PREFIX = '/media/history/';
export const MEDIA_SOURCES: readonly HistoryMediaSourceName[] = ['mix', 'you', 'others'];

export interface MediaTarget {
  entryId: string;
  source: HistoryMediaSourceName;
}

/** The media URL of an entry's source: Electron's scheme, or the web server's path with its key. */
export function mediaUrl(host: { mode: 'electron' } | { mode: 'web'; key: string }, target: MediaTarget): string {
  const tail = `${target.entryId}/${target.source}.wav`;
  return host.mode === 'electron' ? `${MEDIA_SCHEME}://${MEDIA_HOST}/${tail}` : `${WEB_MEDIA_PREFIX}${tail}?key=${encodeURIComponent(host.key)}`;
}

/**
 * The target a request path names (`<entry id>/<source>.wav`, after the base), or null. Decoding is not
 * needed and not done: an id is letters, digits and dashes, so `%2e%2e`, `..`, a slash too many or any
 * other character simply does not match.
 */
export function parseMediaPath(rest: string): MediaTarget | null {
  const m = /^([^/]+)\/([a-z]+)\.wav$/.exec(rest);
  if (!m) return null;
  const [, entryId, source] = m as unknown as [string, string, string];
  if (!HISTORY_ID.test(entryId) || entryId.length > 64) return null;
  if (!(MEDIA_SOURCES as readonly string[]).includes(source)) return null;
  return { entryId, source: source as HistoryMediaSourceName };
}
