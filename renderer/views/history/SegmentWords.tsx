// One line's words as buttons that play from that word (Enter, Space or a
// click); the word being heard is marked (aria-current). Only one word of the
// whole transcript is in the Tab order (SegmentList moves it with the arrow keys).
import { memo } from 'react';
import type { Word } from '../../../app/ipc/contract.js';
import { formatTimestamp } from '../../format.js';

interface Props {
  index: number;
  words: readonly Word[];
  /** Word index heard now in this line, or -1. */
  current: number;
  /** Word index in the Tab order in this line, or -1. */
  tabStop: number;
  onWord(t: number, key: string): void;
}

export const SegmentWords = memo(function SegmentWords({ index, words, current, tabStop, onWord }: Props) {
  return (
    <>
      {words.map((w, i) => (
        <span key={i}>
          {i > 0 ? ' ' : null}
          <button
            type="button"
            className={`word-button${i === current ? ' word-current' : ''}`}
            aria-current={i === current ? 'true' : undefined}
            aria-label={`${w.text}, play from ${formatTimestamp(w.start)}`}
            tabIndex={i === tabStop ? 0 : -1}
            data-word={`${index}:${i}`}
            data-start={w.start}
            data-testid="history-word"
            onClick={() => onWord(w.start, `${index}:${i}`)}
          >
            {w.text}
          </button>
        </span>
      ))}
    </>
  );
});
