// The app's one resampler (app/shared/resample.ts): the same samples whatever
// the chunking, exact output counts, in-band tones kept (frequency, level,
// ripple) and what would alias suppressed. The stop-band bound is the 90 dB
// design less a margin; the figures measured with the engine's former C++
// resampler, which this one reproduced bit for bit, are in ARCHITECTURE.md.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StreamingResampler, resample } from '../../../app/shared/resample.js';
import { concat, prng } from '../../support/audio/signals.js';

function tone(n: number, freqHz: number, rate: number, amp = 0.5): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => amp * Math.sin((2 * Math.PI * freqHz * i) / rate));
}

function noise(n: number, seed: number): Float32Array {
  const next = prng(seed);
  return Float32Array.from({ length: n }, () => next() - 0.5);
}

function rms(x: Float32Array, from = 0, to = x.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += x[i]! * x[i]!;
  return Math.sqrt(sum / Math.max(1, to - from));
}

function zeroCrossingFrequency(x: Float32Array, rate: number, from: number, to: number): number {
  let first = -1;
  let last = -1;
  let count = 0;
  for (let i = from + 1; i < to; i++) {
    if (x[i - 1]! < 0 && x[i]! >= 0) {
      const at = i - 1 + x[i - 1]! / (x[i - 1]! - x[i]!);
      if (first < 0) first = at;
      else count++;
      last = at;
    }
  }
  return (count * rate) / (last - first);
}

/** Through a StreamingResampler in chunks of the sizes `sizes` gives in turn (0 included), then flush. */
function chunked(x: Float32Array, inRate: number, outRate: number, sizes: () => number): Float32Array {
  const r = new StreamingResampler(inRate, outRate);
  const parts: Float32Array[] = [];
  for (let at = 0; at < x.length; ) {
    const n = Math.min(sizes(), x.length - at);
    parts.push(r.process(x.subarray(at, at + n)));
    at += n;
  }
  parts.push(r.flush());
  return concat(...parts);
}

/** Level of a 2 s tone at `freqHz` after `inRate` → 16 kHz, in dB relative to the input (edges skipped). */
function gainDb(freqHz: number, inRate: number): number {
  const x = tone(inRate * 2, freqHz, inRate);
  const y = resample(x, inRate, 16_000);
  return 20 * Math.log10(rms(y, 1600, y.length - 1600) / rms(x));
}

describe('resampler: one call or any chunks', () => {
  const pairs: [number, number][] = [[44_100, 16_000], [48_000, 16_000], [8000, 16_000], [22_050, 16_000], [44_099, 16_000], [16_000, 48_000]];
  for (const [inRate, outRate] of pairs) {
    test(`${inRate} → ${outRate}: chunks of 1, 7, 480, random sizes (0 included) and one call give the same samples`, () => {
      const x = noise(Math.round(inRate * 0.7), inRate);
      const whole = resample(x, inRate, outRate);
      assert.equal(whole.length, Math.floor((x.length * outRate) / inRate), 'floor(n · out/in) samples');
      const next = prng(outRate + inRate);
      const chunkings: [string, () => number][] = [
        ['1', () => 1],
        ['7', () => 7],
        ['480', () => 480],
        ['random 0..5000', () => Math.floor(next() * 5000)],
      ];
      for (const [label, sizes] of chunkings) {
        const got = chunked(x, inRate, outRate, sizes);
        assert.equal(got.length, whole.length, `chunks of ${label}: length`);
        let differ = 0;
        for (let i = 0; i < got.length; i++) if (!Object.is(got[i], whole[i])) differ++;
        assert.equal(differ, 0, `chunks of ${label}: ${differ} samples differ from the one-call output`);
      }
    });
  }

  test('a long input in one call (3 s at 48 kHz, over the 65 536 samples process() takes at a time) equals chunks of 4096 and random sizes up to 100 000', () => {
    const x = noise(48_000 * 3, 5);
    const whole = resample(x, 48_000, 16_000);
    assert.equal(whole.length, 48_000);
    const next = prng(77);
    for (const [label, sizes] of [['4096', () => 4096], ['random', () => Math.floor(next() * 100_000)]] as const) {
      const got = chunked(x, 48_000, 16_000, sizes);
      assert.deepEqual(got, whole, `chunks of ${label}`);
    }
  });

  test('the same rate is a copy; flush twice gives nothing more; process after flush is refused', () => {
    const x = noise(1000, 3);
    const r = new StreamingResampler(16_000, 16_000);
    const y = r.process(x);
    assert.deepEqual(y, x);
    assert.notEqual(y, x, 'a copy, not the caller’s array');
    assert.equal(r.flush().length, 0);
    const down = new StreamingResampler(48_000, 16_000);
    const head = down.process(x);
    assert.equal(head.length + down.flush().length, Math.floor(1000 / 3), 'flush completes the count');
    assert.equal(down.flush().length, 0);
    assert.throws(() => down.process(x), /after flush/);
  });

  test('a short input still gives floor(n · out/in) samples (all of them from flush)', () => {
    const r = new StreamingResampler(44_100, 16_000);
    const first = r.process(noise(100, 9));
    const rest = r.flush();
    assert.equal(first.length, 0, 'nothing is determined yet by 100 samples');
    assert.equal(rest.length, Math.floor((100 * 16_000) / 44_100));
  });

  test('unusable rates are refused, naming the rate and the range', () => {
    for (const [a, b] of [[0, 16_000], [16_000, -5], [44_100.5, 16_000], [999, 16_000], [16_000, 800_000]]) {
      assert.throws(() => new StreamingResampler(a, b), (e: Error) => e instanceof RangeError && /sample rate .* Hz \(expected a whole number of Hz, 1000\.\.768000\)/.test(e.message), `${a} → ${b}`);
    }
  });
});

describe('resampler: quality', () => {
  for (const inRate of [48_000, 44_100, 22_050, 8000]) {
    test(`1 kHz sine ${inRate} Hz → 16 kHz keeps its frequency (±1 Hz) and level (±0.01 dB)`, () => {
      const x = tone(inRate * 2, 1000, inRate);
      const y = resample(x, inRate, 16_000);
      const f = zeroCrossingFrequency(y, 16_000, 1600, y.length - 1600);
      const db = 20 * Math.log10(rms(y, 1600, y.length - 1600) / rms(x));
      console.log(`1 kHz at ${inRate} → 16000: ${f.toFixed(3)} Hz, ${db.toFixed(5)} dB`);
      assert.ok(Math.abs(f - 1000) < 1, `frequency ${f}`);
      assert.ok(Math.abs(db) < 0.01, `level ${db} dB`);
    });
  }

  test('16 kHz → 48 kHz keeps a 1 kHz sine', () => {
    const x = tone(32_000, 1000, 16_000);
    const y = resample(x, 16_000, 48_000);
    assert.equal(y.length, 96_000);
    assert.ok(Math.abs(zeroCrossingFrequency(y, 48_000, 4800, y.length - 4800) - 1000) < 1);
    assert.ok(Math.abs(rms(y, 4800, y.length - 4800) / rms(x) - 1) <= 0.001);
  });

  for (const inRate of [48_000, 44_100]) {
    test(`${inRate} → 16 kHz: the pass band (100 Hz–6.88 kHz) is flat within 0.01 dB`, () => {
      let lo = 0;
      let hi = 0;
      for (let f = 100; f <= 6880; f += 389) {
        const db = gainDb(f, inRate);
        lo = Math.min(lo, db);
        hi = Math.max(hi, db);
      }
      console.log(`pass band ${inRate} → 16000: ${lo.toFixed(4)} .. ${hi.toFixed(4)} dB`);
      assert.ok(lo > -0.01 && hi < 0.01, `ripple ${lo} .. ${hi} dB`);
    });

    test(`${inRate} → 16 kHz: tones from 7.9 to 20 kHz (they would alias) are ≥ 85 dB down`, () => {
      const measured: string[] = [];
      const failures: string[] = [];
      for (const f of [7900, 8000, 8200, 9000, 12_000, 16_000, 20_000]) {
        const db = gainDb(f, inRate);
        measured.push(`${f} Hz ${db.toFixed(1)} dB`);
        if (!(db <= -85)) failures.push(`${f} Hz only ${(-db).toFixed(1)} dB down`);
      }
      console.log(`stop band ${inRate} → 16000: ${measured.join(', ')}`);
      assert.deepEqual(failures, []);
    });
  }
});
