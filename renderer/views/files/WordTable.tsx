// Every word with its start–end time and confidence. Words the model was
// unsure of (< 0.5) are marked in colour and in words, with a title that says
// why. A long recording has thousands of words: rows come in pages so the
// table stays quick to render.
import { useState } from 'react';
import type { Word } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { formatTimestamp } from '../../format.js';

export const LOW_CONFIDENCE = 0.5;
const PAGE = 300;

function lowTitle(confidence: number): string {
  return `Low confidence (${Math.round(confidence * 100)} %): the model was unsure of this word; check it against the audio.`;
}

export function WordTable({ words }: { words: readonly Word[] }) {
  const [limit, setLimit] = useState(PAGE);
  const shown = words.slice(0, limit);
  const low = words.filter((w) => w.confidence < LOW_CONFIDENCE).length;
  if (words.length === 0) return <p className="muted">No words were recognized.</p>;
  return (
    <div className="word-table">
      <p className="muted word-table-note">
        {words.length} words{low ? `, ${low} with low confidence (under ${LOW_CONFIDENCE * 100} %, marked "low": the model was unsure of them; check them against the audio)` : ''}.
      </p>
      <div className="word-table-scroll" tabIndex={0} role="region" aria-label="Words with timestamps (scrollable)">
        <table className="table" data-testid="word-table">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Word</th>
              <th scope="col">Time</th>
              <th scope="col">Confidence</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((w, i) => {
              const isLow = w.confidence < LOW_CONFIDENCE;
              return (
                <tr
                  key={i}
                  className={isLow ? 'word-low' : undefined}
                  data-testid="word-row"
                  data-start={w.start}
                  data-end={w.end}
                >
                  <td className="muted num">{i + 1}</td>
                  <th scope="row" className="word-text">{w.text}</th>
                  <td className="num" data-testid="word-time">
                    {formatTimestamp(w.start)}–{formatTimestamp(w.end)}
                  </td>
                  <td className="num">
                    {Math.round(w.confidence * 100)} %{isLow ? (
                      <span className="badge badge-low">
                        low<span className="visually-hidden">. {lowTitle(w.confidence)}</span>
                      </span>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {words.length > limit ? (
        <Button variant="quiet" onClick={() => setLimit((n) => n + PAGE)}>
          Show {Math.min(PAGE, words.length - limit)} more ({words.length - limit} not shown)
        </Button>
      ) : null}
    </div>
  );
}
