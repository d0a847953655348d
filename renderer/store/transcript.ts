// Transcript slice. Rules the UI relies on: a final segment never changes and
// is never duplicated; a partial only shows for the segment that is still
// open; a late partial for an already-final segment is dropped.
import type { SessionSummary, TranscriptEvent } from '../../app/ipc/contract.js';
import type { FinalSegment, TranscriptSlice } from './types.js';
import { joinSegments } from '../../app/shared/text-transform.js';

export const initialTranscript: TranscriptSlice = { finals: [], partial: null };

function hasFinal(s: TranscriptSlice, sessionId: string, segmentId: number): boolean {
  return s.finals.some((f) => f.sessionId === sessionId && f.segmentId === segmentId);
}

function toFinal(ev: TranscriptEvent): FinalSegment {
  return {
    sessionId: ev.sessionId, segmentId: ev.segmentId, text: ev.text, start: ev.start, end: ev.end, devicesRan: ev.devicesRan,
    ...(ev.language ? { language: ev.language } : {}),
  };
}

/** Insert keeping (session order of first appearance, segmentId) order. */
function insertFinal(finals: FinalSegment[], seg: FinalSegment): FinalSegment[] {
  const out = finals.slice();
  let i = out.length;
  while (i > 0 && out[i - 1].sessionId === seg.sessionId && out[i - 1].segmentId > seg.segmentId) i--;
  out.splice(i, 0, seg);
  return out;
}

export function applyTranscript(s: TranscriptSlice, ev: TranscriptEvent): TranscriptSlice {
  if (ev.kind === 'final') {
    if (hasFinal(s, ev.sessionId, ev.segmentId)) return s;
    const finals = insertFinal(s.finals, toFinal(ev));
    const closesPartial = s.partial && s.partial.sessionId === ev.sessionId && s.partial.segmentId <= ev.segmentId;
    return { finals, partial: closesPartial ? null : s.partial };
  }
  if (hasFinal(s, ev.sessionId, ev.segmentId)) return s;
  return { ...s, partial: ev };
}

/** The stop reply carries every final: fill any event that was missed (e.g. across a reconnect). */
export function applySummary(s: TranscriptSlice, summary: SessionSummary): TranscriptSlice {
  let next = s;
  for (const seg of summary.segments) if (seg.kind === 'final') next = applyTranscript(next, seg);
  if (next.partial && next.partial.sessionId === summary.sessionId) next = { ...next, partial: null };
  return next;
}

/** A cancelled session's tentative text leaves the screen; its finals stay. */
export function dropPartial(s: TranscriptSlice, sessionId: string): TranscriptSlice {
  return s.partial && s.partial.sessionId === sessionId ? { ...s, partial: null } : s;
}

export function clearTranscript(): TranscriptSlice {
  return initialTranscript;
}

/** Plain text of every final, one space between segments (none around a dictated line break or before a mark). */
export function finalText(s: TranscriptSlice): string {
  return joinSegments(s.finals.map((f) => f.text));
}
