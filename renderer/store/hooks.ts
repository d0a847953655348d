// React binding: components select what they show and nothing else.
import { useStore } from 'zustand';
import { appStore } from './store.js';
import type { AppState } from './types.js';

export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(appStore, selector);
}
