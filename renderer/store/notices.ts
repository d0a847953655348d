// Notices slice: banners. A notice with the same key replaces the earlier one,
// so a restarting engine shows one banner that updates, not a pile.
import type { Notice } from '../../app/ipc/contract.js';
import type { NoticeItem, NoticesSlice } from './types.js';

export const initialNotices: NoticesSlice = { items: [], nextId: 1 };

/** At most this many banners; the oldest go first. */
export const MAX_NOTICES = 5;

export function addNotice(s: NoticesSlice, notice: Notice, key: string = notice.code, at = Date.now()): NoticesSlice {
  const item: NoticeItem = { ...notice, key, id: s.nextId, at };
  const items = s.items.filter((n) => n.key !== key);
  items.push(item);
  return { items: items.slice(-MAX_NOTICES), nextId: s.nextId + 1 };
}

export function dismissNotice(s: NoticesSlice, id: number): NoticesSlice {
  return { ...s, items: s.items.filter((n) => n.id !== id) };
}

export function dismissKey(s: NoticesSlice, key: string): NoticesSlice {
  const items = s.items.filter((n) => n.key !== key);
  return items.length === s.items.length ? s : { ...s, items };
}

/** Every banner whose key starts with `prefix` (a cause that ended: the meeting's warnings once it stops). */
export function dismissKeyPrefix(s: NoticesSlice, prefix: string): NoticesSlice {
  const items = s.items.filter((n) => !n.key.startsWith(prefix));
  return items.length === s.items.length ? s : { ...s, items };
}
