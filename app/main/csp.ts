// Content-Security-Policy of the renderer, one definition for both hosts:
// Electron (file://, set on responses by window.ts) and the web server (HTTP
// header). No inline scripts or styles, no eval, nothing from other origins;
// the only network the page may use is the web bridge's loopback WebSocket.
// Media (History's player) only from the host's media source: Electron's
// parakeet-media: scheme, or the web server's /media/history/ path (a path in
// a source expression limits it to that folder); nothing else, blob: neither.

//
// Development only (`devServer`: PARAKEET_RENDERER_URL, never in a packaged
// app): Vite's dev server injects the React refresh preamble as an inline
// script and each CSS module as a <style> element, and reloads through a
// WebSocket on its own port; without these the page stays blank.

export interface CspOptions {
  bridgeOrigins?: string[];
  mediaSources?: string[];
  /** The Vite dev server's URL (unpackaged Electron only). */
  devServer?: string;
}

export function rendererCsp(options: CspOptions = {}): string {
  const dev = options.devServer ? new URL(options.devServer) : null;
  const devSocket = dev ? `${dev.protocol === 'https:' ? 'wss' : 'ws'}://${dev.host}` : null;
  const connect = ["'self'", ...(options.bridgeOrigins ?? []), ...(devSocket ? [devSocket] : [])].join(' ');
  const media = options.mediaSources?.length ? options.mediaSources.join(' ') : "'none'";
  const inline = dev ? " 'unsafe-inline'" : '';
  return [
    "default-src 'self'",
    `script-src 'self'${inline}`,
    `style-src 'self'${inline}`,
    "img-src 'self' data:",
    `media-src ${media}`,
    // The audio worklet and workers load from the app's own files (blob: for bundlers that inline them).
    "worker-src 'self' blob:",
    `connect-src ${connect}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
