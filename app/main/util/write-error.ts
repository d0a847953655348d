// A failed write of a History or meeting file, in words for the notice that tells the user at once.

export function describeWriteError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'EDQUOT') return 'the disk quota is used up';
  if (code === 'EFBIG') return 'EFBIG: the file grew past the size this system allows';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'the history folder cannot be written';
  return error instanceof Error ? error.message : String(error);
}
