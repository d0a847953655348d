// Content-Security-Policy of the renderer, one definition for both hosts:
// Electron (file://, set on responses by window.ts) and the web server (HTTP
// header). No inline scripts or styles, no eval, nothing from other origins;
// the only network the page may use is the web bridge's loopback WebSocket.
// Media (History's player) only from the host's media source: Electron's
// parakeet-media: scheme, or the web server's /media/history/ path (a path in
// a source expression limits it to that folder); nothing else, blob: neither.

export function rendererCsp(options: { bridgeOrigins?: string[]; mediaSources?: string[] } = {}): string {
  const connect = ["'self'", ...(options.bridgeOrigins ?? [])].join(' ');
  const media = options.mediaSources?.length ? options.mediaSources.join(' ') : "'none'";
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
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
