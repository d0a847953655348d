// Electron-free checks the Electron adapters rely on (so they are unit-tested
// without the Electron binary): which URLs are our renderer, which permission
// requests are granted, what an audio-port message must look like.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
    // Compare file paths, not URL strings: Chromium leaves "[", "]" and "~" raw in a page's URL
    // while pathToFileURL encodes them, so an install folder like "Apps [x64]" or "JOHNSM~1" would
    // never match as a string. The URL parser has already resolved "..", so a path outside the
    // renderer folder shows up as a relative path starting with "..".
    const file = fileURLToPath(u);
    const rel = path.relative(path.dirname(path.resolve(where.indexHtml)), file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  } catch {
    return false;
  }
}

/**
 * The app's page itself (index.html, or the dev server's pages): what IPC answers and sends events to. The overlay
 * (overlay.html next to it) is trusted for navigation but has no preload and listens to nothing, so it is not one.
 */
export function isAppPage(url: string | undefined, where: RendererLocation): boolean {
  if (!isTrustedUrl(url, where)) return false;
  const u = new URL(url!);
  if (u.protocol !== 'file:') return true; // the dev server (isTrustedUrl allowed only its origin)
  return path.resolve(fileURLToPath(u)) === path.resolve(where.indexHtml);
}

/** What this machine lets our page capture besides the microphone. */
export interface PermissionPolicy {
  /** The meeting's system audio is captured by the page (getDisplayMedia answered with loopback: Windows, macOS). */
  displayCapture: boolean;
}

/**
 * Permissions our page may have: audio capture, writing plain text to the clipboard (Chromium asks for
 * "clipboard-sanitized-write" before navigator.clipboard.writeText, which the Copy buttons use) and, where the
 * system-audio plan is a client loopback, getDisplayMedia. Everything else is refused, and nothing is granted to
 * other pages.
 *
 * How getDisplayMedia arrives: Electron 40 (shell/browser/web_contents_permission_helper.cc,
 * RequestMediaAccessPermission) reports every media request as "media" and lists in mediaTypes only the device
 * types (DEVICE_AUDIO_CAPTURE → "audio", DEVICE_VIDEO_CAPTURE → "video"); a display capture has neither, so it is
 * "media" with an empty list. Later Electrons may name it "display-capture". Either one is granted only under a
 * loopback plan; the display-media handler (loopback-capture.ts) then decides what the stream holds.
 */
export function grantsPermission(
  permission: string,
  mediaTypes: readonly string[],
  requestingUrl: string | undefined,
  where: RendererLocation,
  policy: PermissionPolicy = { displayCapture: false },
): boolean {
  if (!isTrustedUrl(requestingUrl, where)) return false;
  if (permission === 'clipboard-sanitized-write') return true;
  if (permission === 'display-capture') return policy.displayCapture;
  if (permission !== 'media') return false;
  if (mediaTypes.length === 0) return policy.displayCapture;
  return mediaTypes.every((t) => t === 'audio');
}

/**
 * The synchronous permission check Chromium makes before a request (session.setPermissionCheckHandler):
 * a media check carries one mediaType ("audio", "video" or "unknown"); a video check is refused.
 */
export function passesPermissionCheck(
  permission: string,
  mediaType: string | undefined,
  urls: readonly (string | undefined)[],
  where: RendererLocation,
): boolean {
  if (!urls.some((url) => isTrustedUrl(url, where))) return false;
  if (permission === 'clipboard-sanitized-write') return true;
  return permission === 'media' && mediaType !== 'video';
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
