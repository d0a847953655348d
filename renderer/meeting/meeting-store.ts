// The Meeting view's state, in a store of its own (the app store's slices
// belong to the other views): the meeting being recorded, its sources and
// levels, the finals so far (both tracks, kept in time order) and the markers
// added, each track's partial (the text of what is being said, replaced by
// its final). A page that reloads mid-meeting fills it again from the
// meeting's History entry (resumed). Reducers are pure so node tests run them;
// the view selects.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type {
  HistoryEntry, MeetingCurrent, MeetingFinal, MeetingInfo, MeetingMarker, MeetingPartial, MeetingSource, MeetingStateEvent, MeetingSummary, MeetingTrackName,
} from '../../app/ipc/contract.js';

export type MeetingPhase = 'idle' | 'starting' | 'recording' | 'stopping';

export interface MeetingViewState {
  phase: MeetingPhase;
  info: MeetingInfo | null;
  elapsedSec: number;
  levels: Record<MeetingTrackName, number>;
  sources: MeetingSource[];
  /** Finals with text, by start time. */
  finals: MeetingFinal[];
  /** Markers by time; `kind: 'gap'`: a track's page was away (main added it). */
  markers: (MeetingMarker & { kind?: 'gap' })[];
  /** Each track's text in progress (null: nothing being said, or its final is in). */
  partials: Record<MeetingTrackName, MeetingPartial | null>;
  /** What went wrong with the last start or stop, in words. */
  error: string | null;
  last: MeetingSummary | null;
}

export const initialMeeting: MeetingViewState = {
  phase: 'idle', info: null, elapsedSec: 0, levels: { you: 0, others: 0 }, sources: [], finals: [], markers: [],
  partials: { you: null, others: null }, error: null, last: null,
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

export function applyPartial(s: MeetingViewState, p: MeetingPartial): MeetingViewState {
  if (p.meetingId !== s.info?.meetingId) return s;
  const shown = s.partials[p.track];
  // A late partial of a segment whose final is already in (or an older one) is not shown.
  if (shown && shown.trackSegment > p.trackSegment) return s;
  if (s.finals.some((f) => f.track === p.track && f.trackSegment !== undefined && f.trackSegment >= p.trackSegment)) return s;
  return { ...s, partials: { ...s.partials, [p.track]: p } };
}

export function applyFinal(s: MeetingViewState, f: MeetingFinal): MeetingViewState {
  if (f.meetingId !== s.info?.meetingId) return s;
  const partial = s.partials[f.track];
  // The final replaces its segment's partial (and any older one); a finals without a number (History) clear it too.
  const partials = partial && (f.trackSegment === undefined || f.trackSegment >= partial.trackSegment) ? { ...s.partials, [f.track]: null } : s.partials;
  // Already shown (read back from History after a reload, then the event): once is enough.
  if (!f.text || s.finals.some((x) => x.segmentId === f.segmentId)) return partials === s.partials ? s : { ...s, partials };
  const finals = [...s.finals];
  // Each track's finals come in order, the two tracks not: insert by start time.
  let i = finals.length;
  while (i > 0 && finals[i - 1]!.start > f.start) i -= 1;
  finals.splice(i, 0, f);
  return { ...s, partials, finals: finals.length > MAX_SHOWN_FINALS ? finals.slice(-MAX_SHOWN_FINALS) : finals };
}

export function markerAdded(s: MeetingViewState, m: MeetingMarker & { kind?: 'gap' }): MeetingViewState {
  if (s.markers.some((x) => x.at === m.at && x.text === m.text)) return s;
  return { ...s, markers: [...s.markers, m].sort((a, b) => a.at - b.at) };
}

/** A page that loaded while the meeting records: its state, and (once read) the entry's finals and markers so far. */
export function resumed(current: MeetingCurrent, info: MeetingInfo): MeetingViewState {
  return { ...initialMeeting, phase: 'recording', info, sources: info.sources, elapsedSec: current.elapsedSec };
}

/** The finals and markers of the meeting's History entry (its journal: every final shown before the reload). */
export function withEntry(s: MeetingViewState, entry: HistoryEntry): MeetingViewState {
  if (entry.id !== s.info?.entryId) return s;
  let next = s;
  for (const seg of entry.segments) {
    const track: MeetingTrackName = seg.speaker === 'Others' ? 'others' : 'you';
    next = applyFinal(next, {
      meetingId: s.info.meetingId, track, speaker: seg.speaker ?? 'You', segmentId: seg.segmentId, start: seg.start, end: seg.end,
      text: seg.text, words: seg.words, devicesRan: seg.devicesRan,
    });
  }
  for (const m of entry.markers ?? []) next = markerAdded(next, m);
  return next;
}

export function stopped(s: MeetingViewState, summary: MeetingSummary | null, error: string | null = null): MeetingViewState {
  return { ...s, phase: 'idle', last: summary ?? s.last, error, levels: { you: 0, others: 0 }, partials: { you: null, others: null } };
}

export const meetingStore: StoreApi<MeetingViewState> = createStore<MeetingViewState>()(() => initialMeeting);
