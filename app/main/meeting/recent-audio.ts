// The audio of a meeting track that a segment may still need: the open
// segment (≤ FILE_WINDOW_SEC) and the pre-roll before it. The whole track is
// in its WAV; this keeps the recent samples as the frames came (no copy into
// larger blocks) and forgets everything before the point the caller releases,
// so memory is bounded by the segment length, not by the meeting's.
export class RecentAudio {
  private readonly chunks: { start: number; data: Float32Array }[] = [];
  private total = 0;
  private bytes = 0;

  get length(): number {
    return this.total;
  }

  get memoryBytes(): number {
    return this.bytes;
  }

  append(samples: Float32Array): void {
    if (samples.length === 0) return;
    const data = samples.slice(); // the caller's frame may be a view into a larger buffer
    this.chunks.push({ start: this.total, data });
    this.total += data.length;
    this.bytes += data.byteLength;
  }

  /** Samples [start, end); released ones read as silence (a caller bug, but never a throw on the audio path). */
  read(start: number, end: number): Float32Array {
    if (end > this.total || start > end || start < 0) throw new RangeError(`read ${start}..${end} outside 0..${this.total}`);
    const out = new Float32Array(end - start);
    for (const c of this.chunks) {
      const from = Math.max(start, c.start);
      const to = Math.min(end, c.start + c.data.length);
      if (from < to) out.set(c.data.subarray(from - c.start, to - c.start), from - start);
    }
    return out;
  }

  /** Nothing before `sample` will be read again: whole chunks before it are dropped. */
  release(sample: number): void {
    while (this.chunks.length && this.chunks[0]!.start + this.chunks[0]!.data.length <= sample) {
      this.bytes -= this.chunks.shift()!.data.byteLength;
    }
  }

  clear(): void {
    this.chunks.length = 0;
    this.bytes = 0;
  }
}
