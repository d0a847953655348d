// Electron-free checks the Electron adapters rely on (so they are unit-tested
// without the Electron binary): which URLs are our renderer, which permission
// requests are granted, what an audio-port message must look like.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface RendererLocation {
  /** dist/renderer/index.html */
  indexHtml: string;
  /** Dev server URL (PARAKEET_RENDERER_URL), trusted like the file when set. */
  devUrl?: string;
}

/** Our page: the renderer's index.html (or files next to it), or the dev server's origin. */
export function isTrustedUrl(url: string | undefined, where: RendererLocation): boolean {
  if (!url) return false;
  try {
    const u = new URL(url);
    if (where.devUrl && u.origin === new URL(where.devUrl).origin) return true;
    if (u.protocol !== 'file:') return false;
    const rendererDir = pathToFileURL(path.dirname(where.indexHtml) + path.sep).href;
    // Compare normalized hrefs: "file:///app/dist/renderer/../secret.html" normalizes outside the folder.
    return u.href.startsWith(rendererDir);
  } catch {
    return false;
  }
}

/** The only permission ever granted: audio capture (no video, no screen) for our own page. */
export function grantsPermission(
  permission: string,
  mediaTypes: readonly string[],
  requestingUrl: string | undefined,
  where: RendererLocation,
): boolean {
  return permission === 'media' && mediaTypes.length > 0 && mediaTypes.every((t) => t === 'audio') && isTrustedUrl(requestingUrl, where);
}

/** A frame from a session's MessagePort: a Float32Array, or { frame, startSample } (AudioPortFrame); else null. */
export function readPortFrame(data: unknown): { frame: Float32Array; startSample?: number } | null {
  if (data instanceof Float32Array) return { frame: data };
  if (typeof data !== 'object' || data === null) return null;
  const { frame, startSample } = data as { frame?: unknown; startSample?: unknown };
  if (!(frame instanceof Float32Array)) return null;
  if (startSample === undefined) return { frame };
  if (typeof startSample !== 'number' || !Number.isSafeInteger(startSample) || startSample < 0) return null;
  return { frame, startSample };
}
