// Web mode's media route: GET/HEAD /media/history/<entry id>/<source>.wav?key=…
// answered by the same code as Electron's protocol (app/main/media). The key
// is the services' per-start media key, handed out only in history:media
// replies over the token-protected bridge: a loopback port is open to every
// local process, and a meeting's audio is as private as its text. Compared in
// constant time; the Host check has already run (server.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { answerMediaRequest, type MediaHistory } from '../main/media/media-request.js';
import { WEB_MEDIA_PREFIX } from '../main/media/media-url.js';
import { tokenMatches } from './security.js';

export function isMediaPath(pathname: string): boolean {
  return pathname.startsWith(WEB_MEDIA_PREFIX);
}

export async function serveMedia(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  opts: { history: MediaHistory; key: string; headers: Record<string, string> },
): Promise<void> {
  if (!tokenMatches(url.searchParams.get('key'), opts.key)) {
    res.writeHead(401, { ...opts.headers, 'content-type': 'text/plain; charset=utf-8' });
    res.end('a media request needs the key from history:media');
    return;
  }
  const range = req.headers.range ?? null;
  const answer = await answerMediaRequest(opts.history, { method: req.method ?? 'GET', path: url.pathname.slice(WEB_MEDIA_PREFIX.length), range });
  res.writeHead(answer.status, { ...opts.headers, ...answer.headers });
  if (!answer.body) {
    res.end(req.method === 'HEAD' ? undefined : answer.text);
    return;
  }
  const body = answer.body;
  // A player drops a request as soon as it seeks elsewhere: the files are released at once.
  res.once('close', () => void body.close());
  try {
    for await (const chunk of body) {
      if (res.destroyed) break;
      if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    }
  } finally {
    await body.close();
  }
  res.end();
}
