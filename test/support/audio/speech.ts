// Speech fixtures from espeak-ng (+ sox for resampling and joining): real
// speech-like audio for tests and benchmarks, generated locally.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const SENTENCES = [
  'Well, I do not wish to see it any more, observed Phoebe, turning away her eyes.',
  'It is certainly very like the old portrait.',
  'The quick brown fox jumps over the lazy dog near the river bank.',
  'Please send the quarterly report to the finance team before Friday.',
  'Local speech recognition keeps every word on your own machine.',
  'She sells sea shells by the sea shore every summer morning.',
  'Meeting notes: we agreed to ship the release candidate next week.',
  'How much wood would a woodchuck chuck if a woodchuck could chuck wood?',
];

function run(command: string, args: string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** One sentence as 16 kHz mono 16-bit WAV (cached by file name). */
export function speakSentence(dir: string, index: number, text = SENTENCES[index % SENTENCES.length]): string {
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `sentence-${index}.wav`);
  if (existsSync(out)) return out;
  const raw = join(dir, `sentence-${index}.raw.wav`);
  run('espeak-ng', ['-s', '160', '-w', raw, text]);
  run('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', out]);
  return out;
}

/**
 * Sentences separated by `pauseSec` of digital silence, repeated until at least
 * `seconds` long, then cut to exactly `seconds` (16 kHz mono 16-bit WAV).
 */
export function speechWithPauses(dir: string, seconds: number, pauseSec = 0.6, name = `speech-${seconds}s.wav`): string {
  mkdirSync(dir, { recursive: true });
  const out = join(dir, name);
  if (existsSync(out)) return out;
  const silence = join(dir, `silence-${pauseSec}.wav`);
  if (!existsSync(silence)) run('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', silence, 'trim', '0', String(pauseSec)]);
  const parts: string[] = [];
  let total = 0;
  for (let i = 0; total < seconds; i++) {
    const sentence = speakSentence(dir, i % SENTENCES.length);
    parts.push(sentence, silence);
    const duration = Number(execFileSync('soxi', ['-D', sentence], { encoding: 'utf8' }).trim());
    total += duration + pauseSec;
  }
  // sox opens every input at once: join in batches for long fixtures.
  let joined = parts;
  let round = 0;
  while (joined.length > 64) {
    const next: string[] = [];
    for (let i = 0; i < joined.length; i += 64) {
      const part = join(dir, `${name}.join-${round}-${i}.wav`);
      run('sox', [...joined.slice(i, i + 64), part]);
      next.push(part);
    }
    joined = next;
    round += 1;
  }
  run('sox', [...joined, out, 'trim', '0', String(seconds)]);
  return out;
}
