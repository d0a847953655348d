// Typed reads of a parsed GGUF's keys with a fallback for an absent key (the fixture writers that
// translate one of our files into another schema read its keys this way).
import type { GgufFile } from './reader.js';
import { plainValue } from './values.js';

export function kvNumber(file: GgufFile, key: string, fallback: number): number {
  const v = file.kv.get(key);
  return v === undefined ? fallback : Number(plainValue(v));
}

export function kvString(file: GgufFile, key: string, fallback: string): string {
  const v = file.kv.get(key);
  return v === undefined ? fallback : String(plainValue(v));
}

export function kvBoolean(file: GgufFile, key: string, fallback: boolean): boolean {
  const v = file.kv.get(key);
  return v === undefined ? fallback : Boolean(plainValue(v));
}
