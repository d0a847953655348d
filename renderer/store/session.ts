// Session slice: the renderer's dictation lifecycle and the figures it shows.
import type { InsertDelivery, LatencyReport, SessionStateEvent, SessionSummary } from '../../app/ipc/contract.js';
import type { SessionPhase, SessionSlice } from './types.js';

export const initialSession: SessionSlice = {
  phase: 'idle',
  sessionId: null,
  serverState: null,
  delayedBy: null,
  level: 0,
  pressToMicMs: null,
  latency: null,
  lastSummary: null,
  micLabel: null,
  armed: false,
};

export function setPhase(s: SessionSlice, phase: SessionPhase): SessionSlice {
  return phase === s.phase ? s : { ...s, phase };
}

export function sessionStarted(s: SessionSlice, sessionId: string): SessionSlice {
  return { ...s, phase: 'live', sessionId, serverState: 'listening', latency: null, lastSummary: null };
}

/** Server state events of other (older) sessions are ignored. */
export function applySessionState(s: SessionSlice, ev: SessionStateEvent): SessionSlice {
  if (ev.sessionId !== s.sessionId) return s;
  return { ...s, serverState: ev.state, delayedBy: ev.delayedBy ?? null };
}

export function applyInserted(s: SessionSlice, delivery: InsertDelivery): SessionSlice {
  if (s.sessionId !== null && delivery.sessionId !== s.sessionId) return s;
  return { ...s, inserted: delivery };
}

export function applyLatency(s: SessionSlice, report: LatencyReport): SessionSlice {
  // Keep the figures of the last session visible after it stopped.
  if (s.sessionId !== null && report.sessionId !== s.sessionId) return s;
  return { ...s, latency: report };
}

export function sessionStopped(s: SessionSlice, summary: SessionSummary | null): SessionSlice {
  return {
    ...s,
    phase: 'idle',
    sessionId: null,
    serverState: summary ? 'stopped' : null,
    delayedBy: null,
    lastSummary: summary ?? s.lastSummary,
    latency: summary ? summary.latency : s.latency,
    level: s.armed ? s.level : 0,
  };
}
