// Which audio file an entry's track may be read from, checked on disk. The
// file name comes from the entry's own `track` record (letters, digits, dots,
// dashes, `.wav`: records.ts), never from a request; still, what is opened
// must really be a regular file directly inside the entry's own audio folder
// <history>/audio/<id>/: the folder itself must not be a link elsewhere, and
// the file's real path (links followed) must sit in that real folder — so a
// link to another entry's audio, to the renderer or out of the history is
// refused, whatever put it there.
import fs from 'node:fs/promises';
import path from 'node:path';
import { CodedError } from '../../../types/errors.js';

const TRACK_FILE = /^[a-z0-9][a-z0-9.-]*\.wav$/;

/** The real path of `file` in `audioDir` (an entry's audio folder), or a CodedError saying why not. */
export async function resolveTrackFile(audioDir: string, file: string): Promise<string> {
  if (!TRACK_FILE.test(file) || file.includes('..')) {
    throw new CodedError('BAD_ARGUMENT', `"${file.slice(0, 64)}" is not a track file name.`);
  }
  const parentReal = await fs.realpath(path.dirname(audioDir)).catch(() => null);
  const dirReal = await fs.realpath(audioDir).catch(() => null);
  if (!parentReal || !dirReal) throw new CodedError('NOT_FOUND', 'This entry has no audio folder (its audio was deleted or never kept).');
  if (dirReal !== path.join(parentReal, path.basename(audioDir))) {
    throw new CodedError('BAD_ARGUMENT', "This entry's audio folder is a link to another place; it is not played.");
  }
  const real = await fs.realpath(path.join(audioDir, file)).catch(() => null);
  if (!real) throw new CodedError('NOT_FOUND', `The track ${file} is not in this entry's audio folder.`);
  if (path.dirname(real) !== dirReal) throw new CodedError('BAD_ARGUMENT', `The track ${file} links outside this entry's audio folder; it is not played.`);
  const stat = await fs.stat(real);
  if (!stat.isFile()) throw new CodedError('BAD_ARGUMENT', `The track ${file} is not a regular file.`);
  return real;
}
