// What of an entry can be played, and the files behind each source. Only
// meetings keep audio (a dictation keeps its text; a file entry points at the
// user's own file, which the app does not serve). A meeting offers its tracks
// mixed on meeting time — how the meeting sounded, and the one timeline every
// segment's times are in — and each track alone (to hear one side clearly
// where both spoke at once). A meeting still being recorded is not played:
// its files grow under the player.
import type { HistoryEntry, HistoryMediaSourceName, MeetingAudioTrack, MeetingTrackName } from '../../ipc/contract.js';

/** What of an entry says what it can play: its kind, whether it still records, its tracks. */
export type EntryAudio = Pick<HistoryEntry, 'kind' | 'live' | 'audio'>;
import { CodedError } from '../../../types/errors.js';
import { resolveTrackFile } from './entry-audio.js';
import type { WavPart } from './wav-source.js';

const TRACK_ORDER: readonly MeetingTrackName[] = ['you', 'others'];

export interface SourcePlan {
  source: HistoryMediaSourceName;
  label: string;
  /** Meeting time of the source's time 0. */
  offsetSec: number;
  tracks: MeetingAudioTrack[];
}

/** The sources of an entry, mix first (none when it kept no audio or is still recording). */
export function sourcesOf(entry: EntryAudio): SourcePlan[] {
  // You first, then Others, whichever started first (the journal has them in the order their first audio came).
  const tracks = (entry.kind === 'meeting' && !entry.live ? (entry.audio ?? []) : [])
    .slice().sort((a, b) => TRACK_ORDER.indexOf(a.track) - TRACK_ORDER.indexOf(b.track));
  if (tracks.length === 0) return [];
  const single = tracks.map((t) => ({ source: t.track, label: t.speaker, offsetSec: t.offsetSec, tracks: [t] }));
  if (tracks.length === 1) return single;
  return [{ source: 'mix', label: tracks.map((t) => t.speaker).join(' and '), offsetSec: 0, tracks }, ...single];
}

/** The checked files of one source (entry-audio.ts), or a CodedError naming what is missing. */
export async function partsOf(entry: EntryAudio, source: HistoryMediaSourceName, audioDir: string): Promise<WavPart[]> {
  if (entry.kind !== 'meeting') throw new CodedError('NOT_FOUND', 'Only meetings keep their audio; this entry has none to play.');
  if (entry.live) throw new CodedError('BUSY', 'This meeting is still being recorded; it can be played once it is stopped.');
  const plan = sourcesOf(entry).find((p) => p.source === source);
  if (!plan) throw new CodedError('NOT_FOUND', `This meeting has no "${source}" audio.`);
  const parts: WavPart[] = [];
  for (const t of plan.tracks) parts.push({ file: await resolveTrackFile(audioDir, t.file), offsetSec: t.offsetSec - plan.offsetSec });
  return parts;
}
