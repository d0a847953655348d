// Electron adapter: the parakeet-media: scheme History's player loads audio
// from (parakeet-media://history/<entry id>/<source>.wav). Registered as a
// privileged, streaming scheme before the app is ready (seeking needs Range
// requests), handled in our session only, read-only, answered by
// app/main/media (path validated there; tested without Electron).
import { protocol, type Session } from 'electron';
import { answerMediaRequest, type MediaBody, type MediaHistory } from '../media/media-request.js';
import { MEDIA_HOST, MEDIA_SCHEME } from '../media/media-url.js';

/** Before app 'ready'. */
export function registerMediaScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: MEDIA_SCHEME, privileges: { standard: true, secure: true, stream: true, supportFetchAPI: false, corsEnabled: false, bypassCSP: false } },
  ]);
}

function streamOf(body: MediaBody): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    // The player seeks elsewhere and drops this request: the files are released at once.
    cancel: () => body.close(),
  });
}

export function bindMediaProtocol(ses: Session, history: MediaHistory): void {
  ses.protocol.handle(MEDIA_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== MEDIA_HOST) return new Response('not found', { status: 404 });
    const answer = await answerMediaRequest(history, { method: request.method, path: url.pathname.slice(1), range: request.headers.get('range') });
    return new Response(answer.body ? streamOf(answer.body) : (answer.text ?? null), { status: answer.status, headers: answer.headers });
  });
}
