// The Meeting view's state, in a store of its own (the app store's slices
// belong to the other views): the meeting being recorded, its sources and
// levels, the finals so far (both tracks, kept in time order) and the markers
// added. Reducers are pure so node tests run them; the view selects.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { MeetingFinal, MeetingInfo, MeetingMarker, MeetingSource, MeetingStateEvent, MeetingSummary, MeetingTrackName } from '../../app/ipc/contract.js';

export type MeetingPhase = 'idle' | 'starting' | 'recording' | 'stopping';

export interface MeetingViewState {
  phase: MeetingPhase;
  info: MeetingInfo | null;
  elapsedSec: number;
  levels: Record<MeetingTrackName, number>;
  sources: MeetingSource[];
  /** Finals with text, by start time. */
  finals: MeetingFinal[];
  markers: MeetingMarker[];
  /** What went wrong with the last start or stop, in words. */
  error: string | null;
  last: MeetingSummary | null;
}

export const initialMeeting: MeetingViewState = {
  phase: 'idle', info: null, elapsedSec: 0, levels: { you: 0, others: 0 }, sources: [], finals: [], markers: [], error: null, last: null,
};

/** Finals shown in the view: the rest of a meeting is in History. */
export const MAX_SHOWN_FINALS = 2000;

export function started(info: MeetingInfo): MeetingViewState {
  return { ...initialMeeting, phase: 'recording', info, sources: info.sources };
}

export function applyState(s: MeetingViewState, ev: MeetingStateEvent): MeetingViewState {
  if (ev.meetingId !== s.info?.meetingId) return s;
  return { ...s, elapsedSec: ev.elapsedSec, levels: ev.levels, sources: ev.sources };
}

export function applyFinal(s: MeetingViewState, f: MeetingFinal): MeetingViewState {
  if (f.meetingId !== s.info?.meetingId || !f.text) return s;
  const finals = [...s.finals];
  // Each track's finals come in order, the two tracks not: insert by start time.
  let i = finals.length;
  while (i > 0 && finals[i - 1]!.start > f.start) i -= 1;
  finals.splice(i, 0, f);
  return { ...s, finals: finals.length > MAX_SHOWN_FINALS ? finals.slice(-MAX_SHOWN_FINALS) : finals };
}

export function markerAdded(s: MeetingViewState, m: MeetingMarker): MeetingViewState {
  return { ...s, markers: [...s.markers, m] };
}

export function stopped(s: MeetingViewState, summary: MeetingSummary | null, error: string | null = null): MeetingViewState {
  return { ...s, phase: 'idle', last: summary ?? s.last, error, levels: { you: 0, others: 0 } };
}

export const meetingStore: StoreApi<MeetingViewState> = createStore<MeetingViewState>()(() => initialMeeting);
