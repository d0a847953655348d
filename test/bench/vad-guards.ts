// bench:vad's "silence guards" table: what the edge trim and the confidence floor (app/shared/silence-guards.ts)
// add to the trained VAD. For each ASR model (the trained digits model; a generated model, whose words are
// noise-driven everywhere, so only its non-speech count means anything) and each way of cutting (no VAD:
// the whole stream to the model; the energy VAD; Silero; Silero with each guard), the words emitted on the
// non-speech set and the WER on the held-out-style set. Cut as a file job cuts (planSpeechWindows, the
// hop grid, segments joined or not) or, for the "live" rows, as a dictation or meeting track cuts (the
// Segmenter on Silero's verdicts); each window decoded alone and its words kept or dropped by the floor.
// Where the held-out errors fall (a window's first word, its last, or between) says what costs them: audio
// in front of a string's first word made the digits model hear an extra word there (the onset column). The
// "true bounds" rows cut the same stream where espeak says each string starts and ends: what a perfect VAD
// with the app's pads scores, so the gap from "each string alone" splits into the VAD's own part and the part
// any cut of this noisy stream pays.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Model, type VadModel } from '../../native/index.js';
import { DEFAULT_DICTATION } from '../../app/ipc/settings.js';
import { Segmenter, trainedVadSegmenterOptions } from '../../app/main/sessions/segmenter.js';
import { hopEnergiesOf } from '../../app/engine-process/hop-energies.js';
import { planSpeechWindows } from '../../app/engine-process/speech-windows.js';
import { keepConfidentWords, trimSegmentEdges } from '../../app/shared/silence-guards.js';
import { fadeInOnset, ONSET_FADE_MS } from '../../app/shared/onset-fade.js';
import { SPEECH_TAIL_MS, speechSegments, type SampleSegment, type VadSegmentOptions } from '../../app/shared/vad-segments.js';
import { align, normalizeText, words as wordsOf, type AlignOp } from '../../app/shared/wer.js';
import { REPO_ROOT } from '../support/audio/digits.js';
import { gappedDigits } from '../support/audio/gapped-digits.js';
import { generateModel } from '../support/model/index.js';

const RATE = 16000;
const MAX_WINDOW_SEC = 30;

interface Cut {
  label: string;
  /** Segments to decode (null: the whole stream, the engine's own windows). */
  segments: (pcm: Float32Array) => Promise<SampleSegment[] | null>;
  floor: number;
  /** Segments closer than this share a window (the file job: 0, each segment alone; it was 1 s). */
  joinGapSec?: number;
  /** Live: each segment decoded as the session decodes it, exactly [start, end) (no window planning). */
  live?: boolean;
  /** Digital silence put in front of each window before decoding (ms): a clean lead-in, as a string alone has. */
  leadMs?: number;
  /**
   * The onset fade (ms) of each window that begins at a speech onset (a file window planned from a segment's start,
   * every live segment): default the app's, ONSET_FADE_MS; 0 without it.
   */
  fadeMs?: number;
}

interface Decoded {
  words: { text: string; confidence: number }[];
  /** Each window's words with its range, for the errors by position. */
  windows: { begin: number; end: number; text: string }[];
}

/** Errors of one window's hypothesis at its first reference word (or before it), its last, or between. */
function errorsByPosition(ops: readonly AlignOp[]): { onset: number; middle: number; end: number } {
  const out = { onset: 0, middle: 0, end: 0 };
  const refCount = ops.filter((o) => o.op !== 'ins').length;
  let ref = 0;
  for (const o of ops) {
    const at = o.op === 'ins' ? ref - 0.5 : ref;
    if (o.op !== 'ins') ref += 1;
    if (o.op === 'hit') continue;
    if (at <= 0) out.onset += 1;
    else if (at >= refCount - 1) out.end += 1;
    else out.middle += 1;
  }
  return out;
}

async function decode(asr: Model, pcm: Float32Array, cut: Cut): Promise<Decoded> {
  const segments = await cut.segments(pcm);
  const frame = Math.round(asr.info().frameSec * RATE);
  const windows = segments === null
    ? [{ begin: 0, end: pcm.length }]
    : cut.live ? segments.map((s) => ({ begin: s.start, end: s.end }))
    : planSpeechWindows(hopEnergiesOf(pcm, RATE), segments, RATE, MAX_WINDOW_SEC * RATE, frame, cut.joinGapSec ?? 0);
  const words: Decoded['words'] = [];
  const decoded: Decoded['windows'] = [];
  for (const w of windows) {
    const lead = Math.round(((cut.leadMs ?? 0) / 1000) * RATE);
    const clip = new Float32Array(lead + w.end - w.begin);
    clip.set(pcm.subarray(w.begin, w.end), lead);
    // As the app decodes it: a window that begins at an onset is faded in (app/shared/onset-fade.ts).
    const atOnset = cut.live === true || ('onset' in w && w.onset === true);
    const faded = atOnset ? fadeInOnset(clip.subarray(lead), RATE, cut.fadeMs ?? ONSET_FADE_MS) : clip.subarray(lead);
    clip.set(faded, lead);
    const result = await asr.transcribe(clip, { sampleRate: RATE });
    const kept = keepConfidentWords(result.words, cut.floor);
    words.push(...kept);
    decoded.push({ ...w, text: kept.map((k) => k.text).join(' ') });
  }
  return { words, windows: decoded };
}

function energyCut(pcm: Float32Array): SampleSegment[] {
  const d = DEFAULT_DICTATION;
  const seg = new Segmenter({ sampleRate: RATE, pauseMs: d.pauseMs, maxSegmentSec: d.maxSegmentSec, preRollMs: 0, thresholdDb: d.vadThresholdDb });
  const out: SampleSegment[] = [];
  const events = [];
  for (let i = 0; i < pcm.length; i += 640) events.push(...seg.push(pcm.subarray(i, i + 640)));
  events.push(...seg.finish());
  for (const e of events) if (e.type === 'close') out.push({ start: e.start, end: e.end });
  return out;
}

/** The app's file-job options for Silero (Settings' defaults) with a given pad. */
function fileOptions(padMs: number, tailMs: number): VadSegmentOptions {
  const d = DEFAULT_DICTATION;
  return { threshold: d.vadSpeechThreshold, minSpeechMs: d.vadMinSpeechMs, minSilenceMs: d.vadMinSilenceMs, padMs, tailMs };
}

export async function silenceGuardsTable(opts: {
  vad: VadModel; digits: Model | null; nonSpeech: Float32Array; heldOutStrings: number; heldOutSeed?: number;
  /** Also list the app cut's windows whose text differs from their strings (where and what the errors are). */
  listErrors?: boolean; write: (line: string) => void;
}): Promise<void> {
  const { vad, write } = opts;
  const probsCache = new Map<Float32Array, Float32Array>();
  const probsOf = async (pcm: Float32Array): Promise<Float32Array> => {
    const cached = probsCache.get(pcm);
    if (cached) return cached;
    const stream = vad.createStream(RATE);
    const probs = Float32Array.from([...await stream.process(pcm), ...await stream.flush()]);
    stream.dispose();
    probsCache.set(pcm, probs);
    return probs;
  };
  const silero = (padMs: number, trimMs: number, tailMs = SPEECH_TAIL_MS) => async (pcm: Float32Array) =>
    trimSegmentEdges(speechSegments(await probsOf(pcm), 512, RATE, pcm.length, fileOptions(padMs, tailMs)), trimMs, RATE);
  // A live source's cut (dictation, meeting tracks): the Segmenter on Silero's verdicts, the pause and tail
  // of the settings, a segment opening once its speech lasted `minSpeechMs` and starting `padMs` before its onset.
  const sileroLive = (padMs: number, minSpeechMs = DEFAULT_DICTATION.vadMinSpeechMs) => async (pcm: Float32Array): Promise<SampleSegment[]> => {
    const d = DEFAULT_DICTATION;
    const seg = new Segmenter({
      sampleRate: RATE, pauseMs: d.pauseMs, maxSegmentSec: d.maxSegmentSec, preRollMs: d.preRollMs, thresholdDb: d.vadThresholdDb,
      ...trainedVadSegmenterOptions({ ...d, vadSpeechPadMs: padMs, vadMinSpeechMs: minSpeechMs }),
    });
    seg.push(pcm);
    return [...seg.decide(await probsOf(pcm)), ...seg.finish()].flatMap((e) => (e.type === 'close' ? [{ start: e.start, end: e.end }] : []));
  };
  const cuts: Cut[] = [
    { label: 'no VAD (whole stream)', segments: async () => null, floor: 0 },
    { label: 'no VAD + conf >= 0.9', segments: async () => null, floor: 0.9 },
    // The app's energy path plans no speech windows and fades nothing.
    { label: 'energy VAD', segments: async (pcm) => energyCut(pcm), floor: 0, fadeMs: 0 },
  ];
  // The file job pads segments by Silero's speech pad (vadSpeechPadMs, 30 ms; it used the dictation
  // pre-roll, 300 ms) and decodes each segment alone (segments less than 1 s apart were joined once).
  const pad = DEFAULT_DICTATION.vadSpeechPadMs;
  const tail = SPEECH_TAIL_MS;
  const preRoll = DEFAULT_DICTATION.preRollMs;
  const app = silero(pad, 0);
  const appCut: Cut = { label: `Silero (app: pad ${pad}, tail ${tail})`, segments: app, floor: 0 };
  cuts.push(
    appCut,
    { label: `Silero pad ${pad}, tail ${pad} (before)`, segments: silero(pad, 0, pad), floor: 0 },
    ...[100, 130, 300].map((ms) => ({ label: `Silero pad ${pad}, tail ${ms}`, segments: silero(pad, 0, ms), floor: 0 })),
    { label: `Silero pad ${pad}, joined`, segments: app, floor: 0, joinGapSec: 1 },
    // No pad left in front of the speech (pad = trim, pad 0): the app fades nothing there (fadesFileOnsets).
    { label: `Silero pad ${pad} trim 30`, segments: silero(pad, 30), floor: 0, fadeMs: 0 },
    ...[0.5, 0.7].map((floor) => ({ label: `Silero pad ${pad} conf >= ${floor}`, segments: app, floor })),
    { label: `Silero pad ${preRoll} (the pre-roll)`, segments: silero(preRoll, 0), floor: 0 },
    { label: `Silero pad ${preRoll} trim 250`, segments: silero(preRoll, 250), floor: 0 },
    { label: `Silero pad ${preRoll} conf >= 0.5`, segments: silero(preRoll, 0), floor: 0.5 },
    { label: 'Silero pad 100', segments: silero(100, 0), floor: 0 },
    { label: 'Silero pad 0', segments: silero(0, 0), floor: 0, fadeMs: 0 },
    ...[40, 160].map((ms) => ({ label: `Silero (app), ${ms} ms of silence in front`, segments: app, floor: 0, leadMs: ms })),
    { label: 'Silero (app) without the onset fade', segments: app, floor: 0, fadeMs: 0 },
    { label: 'Silero (app), onset fade 30 ms', segments: app, floor: 0, fadeMs: 30 },
    { label: `live: Silero (app: pad ${pad}, tail ${tail})`, segments: sileroLive(pad), floor: 0, live: true },
    { label: 'live: Silero (app) without the onset fade', segments: sileroLive(pad), floor: 0, live: true, fadeMs: 0 },
    { label: 'live: Silero, no minimum speech', segments: sileroLive(pad, 0), floor: 0, live: true },
    { label: `live: Silero, pre-roll ${preRoll}`, segments: sileroLive(preRoll), floor: 0, live: true },
    { label: 'live: Silero, pad 0', segments: sileroLive(0), floor: 0, live: true, fadeMs: 0 },
  );
  const held = opts.heldOutSeed === undefined ? gappedDigits(opts.heldOutStrings) : gappedDigits(opts.heldOutStrings, opts.heldOutSeed);
  const reference = wordsOf(held.texts.join(' '));
  const generatedPath = join(REPO_ROOT, '.cache', 'bench-vad', 'generated-ctc-tiny.gguf');
  mkdirSync(join(REPO_ROOT, '.cache', 'bench-vad'), { recursive: true });
  generateModel(generatedPath, { preset: 'tiny', arch: 'ctc', weightType: 'f32', seed: 40 });
  const generated = await Model.load(generatedPath, { threads: 1 });
  const models: [string, Model][] = [...(opts.digits ? [['digits (trained)', opts.digits] as [string, Model]] : []), ['generated tiny CTC', generated]];
  write(`\nsilence guards: non-speech set ${(opts.nonSpeech.length / RATE / 60).toFixed(1)} min; held-out-style set ${held.texts.length} strings, ` +
    `${(held.pcm.length / RATE).toFixed(0)} s${opts.heldOutSeed === undefined ? '' : `, seed ${opts.heldOutSeed}`} (0.5–3 s of silence, noise, hum, clicks or tones between strings; WER only for the trained model)\n`);
  write(`${'model'.padEnd(20)} ${'cut'.padEnd(40)} ${'non-speech words'.padStart(16)} ${'held-out WER'.padStart(12)} ${'S/D/I'.padStart(9)} ` +
    `${'errors at first word / between / last'.padStart(38)}\n`);
  // Each string's span in the stream: a window's reference is the strings whose middle it holds.
  const spans: { start: number; end: number; text: string }[] = [];
  let firstWord = 0;
  for (const text of held.texts) {
    const n = wordsOf(text).length;
    spans.push({ start: held.words[firstWord]!.start * RATE, end: held.words[firstWord + n - 1]!.end * RATE, text });
    firstWord += n;
  }
  // A perfect VAD: the same stream cut at each string's true bounds (espeak's first word event to its last word's
  // end), padded as the app pads Silero's segments and planned as a file job plans them. Against the app's row it
  // says what the VAD's own decisions cost; against "each string alone", what any cut of this noisy stream costs
  // (the pad's noise in front of a first word). The non-speech set has no speech, so nothing to decode there.
  const referenceCut = (padMs: number, tailMs: number) => async (pcm: Float32Array): Promise<SampleSegment[]> =>
    pcm !== held.pcm ? [] : spans.map((s) => ({
      start: Math.max(0, Math.round(s.start - (padMs / 1000) * RATE)),
      end: Math.min(pcm.length, Math.round(s.end + (tailMs / 1000) * RATE)),
    }));
  cuts.push(
    { label: `true bounds (ideal), pad ${pad}, tail ${tail}`, segments: referenceCut(pad, tail), floor: 0 },
    { label: `true bounds, pad 0, tail ${tail}`, segments: referenceCut(0, tail), floor: 0, fadeMs: 0 },
    { label: `live: true bounds, pad ${pad}, tail ${tail}`, segments: referenceCut(pad, tail), floor: 0, live: true },
  );
  for (const [name, asr] of models) {
    if (asr === opts.digits) {
      // The reference point: each string decoded alone, no gaps (what "WER unchanged" compares with).
      const alone: string[] = [];
      for (const clip of held.strings) alone.push((await asr.transcribe(clip, { sampleRate: RATE })).text);
      const { counts } = align(reference, wordsOf(normalizeText(alone.join(' '))));
      write(`${name.padEnd(20)} ${'each string alone'.padEnd(40)} ${''.padStart(16)} ${`${((100 * counts.errors) / Math.max(1, counts.n)).toFixed(2)}%`.padStart(12)} ` +
        `${`${counts.substitutions}/${counts.deletions}/${counts.insertions}`.padStart(9)}\n`);
    }
    let leastSureKept = 1;
    let surestInNoise = 0;
    for (const cut of cuts) {
      const ns = await decode(asr, opts.nonSpeech, cut);
      if (cut.label === 'no VAD (whole stream)') for (const w of ns.words) surestInNoise = Math.max(surestInNoise, w.confidence);
      let werText = '—';
      let sdi = '';
      let positions = '';
      const listed: string[] = [];
      if (asr === opts.digits) {
        const got = await decode(asr, held.pcm, cut);
        const hyp = wordsOf(normalizeText(got.words.map((w) => w.text).join(' ')));
        const { counts } = align(reference, hyp);
        werText = `${((100 * counts.errors) / Math.max(1, counts.n)).toFixed(2)}%`;
        sdi = `${counts.substitutions}/${counts.deletions}/${counts.insertions}`;
        const at = { onset: 0, middle: 0, end: 0 };
        for (const w of got.windows) {
          const inWindow = spans.filter((s) => (s.start + s.end) / 2 >= w.begin && (s.start + s.end) / 2 < w.end);
          const ref = inWindow.map((s) => s.text).join(' ');
          const p = errorsByPosition(align(wordsOf(ref), wordsOf(normalizeText(w.text))).ops);
          if (opts.listErrors && cut === appCut && wordsOf(ref).join(' ') !== wordsOf(normalizeText(w.text)).join(' ')) {
            // Where the first string's first word (espeak's word event) falls in the window: the audio before it is pad and noise.
            const leadMs = inWindow.length > 0 ? ((inWindow[0]!.start - w.begin) / RATE) * 1000 : NaN;
            listed.push(`    window at ${(w.begin / RATE).toFixed(2)} s, its first word at ${leadMs >= 0 ? '+' : ''}${leadMs.toFixed(0)} ms: "${ref}" -> "${normalizeText(w.text)}"\n`);
          }
          at.onset += p.onset;
          at.middle += p.middle;
          at.end += p.end;
        }
        positions = `${at.onset} / ${at.middle} / ${at.end}`;
        if (cut.segments === app && cut.floor === 0 && !cut.joinGapSec) for (const w of got.words) leastSureKept = Math.min(leastSureKept, w.confidence);
      }
      write(`${name.padEnd(20)} ${cut.label.padEnd(40)} ${String(ns.words.length).padStart(16)} ${werText.padStart(12)} ${sdi.padStart(9)} ${positions.padStart(38)}\n`);
      for (const line of listed) write(line);
    }
    write(`${name.padEnd(20)} confidence: surest word in non-speech without a VAD ${surestInNoise.toFixed(3)}` +
      `${asr === opts.digits ? `; least sure word on speech (Silero, app) ${leastSureKept.toFixed(3)}` : ''}\n`);
  }
  generated.dispose();
}
