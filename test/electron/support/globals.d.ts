// The page-side global the specs call in page.evaluate (installed by the preload).
import type { ParakeetApi } from '../../../app/ipc/contract.js';

declare global {
  interface Window {
    parakeet?: ParakeetApi;
  }
}
