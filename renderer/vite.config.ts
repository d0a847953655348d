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

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/renderer', import.meta.url));

export default defineConfig({
  root,
  base: './',
  plugins: [react(), noCrossorigin],
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
