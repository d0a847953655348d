// Final text (never changes) followed by the open segment's tentative text.
// Only finals sit in the live region, so a screen reader hears each settled
// sentence once instead of every re-decoded partial.
import { useLayoutEffect, useRef } from 'react';
import { useApp } from '../store/hooks.js';

/** Within this many pixels of the bottom counts as "following the text". */
const FOLLOW_SLACK_PX = 24;

export function Transcript() {
  const finals = useApp((s) => s.transcript.finals);
  const partial = useApp((s) => s.transcript.partial);
  const box = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const empty = finals.length === 0 && !partial?.text;

  // Keep the newest text in view, unless the reader scrolled up to look at something.
  useLayoutEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [finals, partial]);

  return (
    <div
      className="transcript"
      data-testid="transcript"
      ref={box}
      // Scrollable, so it must be reachable by keyboard to scroll it.
      tabIndex={0}
      role="region"
      aria-label="Transcript (scrollable)"
      onScroll={(e) => {
        const el = e.currentTarget;
        follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK_PX;
      }}
    >
      <div className="transcript-finals" role="log" aria-live="polite" aria-label="Transcript" data-testid="finals">
        {finals.map((f) => (
          <span
            key={`${f.sessionId}:${f.segmentId}`}
            className="final"
            data-testid="final"
            data-session={f.sessionId}
            data-segment={f.segmentId}
          >
            {/* Spaces only: a dictated line break ("new line") is part of the text (shown by pre-wrap). */}
            {f.text.replace(/^ +| +$/g, '')}
            {f.language ? <span className="final-language" data-testid="final-language" title={`Language: ${f.language}`}> [{f.language}]</span> : null}{' '}
          </span>
        ))}
      </div>
      {partial && partial.text.trim() ? (
        <span className="partial" data-testid="partial" data-segment={partial.segmentId} title="Tentative: may still change">
          {partial.text.trim()}
        </span>
      ) : null}
      {empty ? <p className="transcript-empty">Press Start and speak. Text appears here.</p> : null}
    </div>
  );
}
