// A row of labelled figures (latencies, a transcript's length, speed and
// devices): one <dl>, each fact a box with its label over its value.
/** `note`: a few words about the value, smaller, under it (a long explanation must not overflow its box). */
export type Fact = [key: string, label: string, value: string, note?: string];

export interface FactListProps {
  facts: readonly Fact[];
  /** Each fact's data-testid is `${testIdPrefix}-${key}`. */
  testIdPrefix: string;
  className?: string;
  testId?: string;
}

export function FactList({ facts, testIdPrefix, className, testId }: FactListProps) {
  return (
    <dl className={className} data-testid={testId}>
      {facts.map(([key, label, value, note]) => (
        <div key={key} className="latency-row" data-testid={`${testIdPrefix}-${key}`}>
          <dt>{label}</dt>
          <dd>
            {value}
            {note ? <span className="fact-note">{note}</span> : null}
          </dd>
        </div>
      ))}
    </dl>
  );
}
