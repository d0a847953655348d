// Builds the renderer into <repo>/dist/renderer. base './' so the same output
// loads from file:// in Electron and from the web server under any path.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';

// Vite marks its tags crossorigin; from file:// (Electron) that turns module
// loads into CORS requests that can fail, and same-origin web mode gains nothing.
const noCrossorigin: Plugin = {
  name: 'parakeet-no-crossorigin',
  transformIndexHtml: { order: 'post', handler: (html) => html.replace(/ crossorigin(?==|\s|>)(="[^"]*")?/g, '') },
};

// `vite` (the dev server, PARAKEET_RENDERER_URL) injects the React refresh preamble inline and CSS as <style>
// elements: the page's own CSP meta tag allows inline code there only (app/main/csp.ts says the same for the
// header Electron adds). Builds keep the strict tag.
const devCsp: Plugin = {
  name: 'parakeet-dev-csp',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace("script-src 'self';", "script-src 'self' 'unsafe-inline';").replace("style-src 'self';", "style-src 'self' 'unsafe-inline';"),
};

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/renderer', import.meta.url));

export default defineConfig({
  root,
  base: './',
  plugins: [react(), noCrossorigin, devCsp],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    // A CSP with script-src 'self' forbids inline scripts: keep everything in files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: true,
    chunkSizeWarningLimit: 1024,
  },
  worker: { format: 'es' },
});
