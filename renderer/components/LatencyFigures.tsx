// The session's latencies, as the session manager measured them, plus the
// press-to-mic time measured here.
import { formatMs } from '../format.js';
import { useApp } from '../store/hooks.js';
import { FactList, type Fact } from './FactList.js';
import { streamChunkFact } from './stream-chunk-fact.js';

export function LatencyFigures() {
  const latency = useApp((s) => s.session.latency);
  const pressToMic = useApp((s) => s.session.pressToMicMs);
  const inserted = useApp((s) => s.session.inserted ?? null);
  const key = useApp((s) => s.session.keyLatency ?? null);
  const pressWord = key?.source === 'hotkey' ? 'Key-down' : key?.source === 'key' ? 'Key press' : 'Press';
  const rows: Fact[] = [
    ['press-to-mic', 'Start to mic live', formatMs(pressToMic)],
    // From the press itself (the global hotkey's key-down as the key hook saw it): what the user waits for.
    ['key-first-text', `${pressWord} to first text`, formatMs(key?.firstTextMs)],
    key && key.insertedMs === null && key.firstTextMs !== null
      ? ['key-inserted', `${pressWord} to text inserted`, 'not inserted', 'insert mode off, or this window had the focus']
      : ['key-inserted', `${pressWord} to text inserted`, formatMs(key?.insertedMs)],
    ['mic-start', 'Mic start (first frame at the engine)', formatMs(latency?.micStartMs)],
    ['first-partial', 'First partial after speech onset', formatMs(latency?.firstPartialMs)],
    // From the last voiced frame: what the user waits after the last word, pause detection included.
    ['final', 'Final after end of speech (last)', formatMs(latency?.finalMs)],
    ['mean-final', 'Final after end of speech (mean)', formatMs(latency?.meanFinalMs)],
  ];
  // Streaming models: what each chunk of live text costs the engine against the audio it holds.
  if (latency?.streamChunk) rows.push(streamChunkFact(latency.streamChunk));
  // Only when inserting into other apps is on: what the last final's delivery took, and what is known of it.
  if (inserted) {
    const how = inserted.method === 'pasted' ? (inserted.confirmed ? 'pasted, read by the app' : 'paste sent') : inserted.method === 'typed' ? 'typed' : 'copied only';
    rows.push(['inserted', 'Text in the other app after its final (last)', formatMs(inserted.ms), how]);
  }
  return (
    <section className="latency" aria-labelledby="latency-title">
      <h3 id="latency-title">Latency</h3>
      <FactList facts={rows} testIdPrefix="latency" testId="latency" />
      <p className="field-hint">
        End of speech is the last moment your voice was heard; a final also waits for the pause that ends the sentence
        (Settings → Dictation).
      </p>
      {latency ? (
        <p className="latency-audio">
          {latency.framesReceived} frames, {(latency.samplesReceived / 16000).toFixed(1)} s of audio received
          {latency.sampleGaps ? `, ${latency.sampleGaps} samples lost` : ', none lost'}
          {latency.nonFiniteSamples ? `, ${latency.nonFiniteSamples} invalid samples (NaN or infinity) replaced by silence` : ''}.
        </p>
      ) : null}
    </section>
  );
}
