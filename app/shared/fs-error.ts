// A file that cannot be read, in words: what happened to which file and what to do, instead of the raw
// "ENOENT: no such file or directory, open '…'" or "EIO: i/o error, read" of Node's fs errors.
import { CodedError } from '../../types/errors.js';

const WORDS: Record<string, { code: string; what: string; todo: string }> = {
  ENOENT: { code: 'NOT_FOUND', what: 'was not found', todo: 'Check the path, or choose the file again.' },
  ENOTDIR: { code: 'NOT_FOUND', what: 'was not found (a part of its path is not a folder)', todo: 'Check the path.' },
  EISDIR: { code: 'BAD_ARGUMENT', what: 'is a folder, not a file', todo: 'Choose a file inside it.' },
  EACCES: { code: 'PERMISSION_DENIED', what: 'cannot be read (permission denied)', todo: 'Give your user read access to it, or copy it somewhere readable.' },
  EPERM: { code: 'PERMISSION_DENIED', what: 'cannot be read (the system does not permit it)', todo: 'Copy it somewhere readable.' },
  EIO: {
    code: 'IO_ERROR',
    what: 'could not be read (an input/output error: a special file such as /proc/self/mem, or a failing disk or network share)',
    todo: 'Choose an ordinary file; if it is one, copy it to a local disk first.',
  },
  ELOOP: { code: 'BAD_ARGUMENT', what: 'is a symbolic link that points at itself', todo: 'Choose the file it should point at.' },
};

/** The CodedError for an fs error while reading `file` (what `role` the file has: "audio file", "model"); anything else is returned as it is. */
export function fileReadError(file: string, error: unknown, role = 'file'): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const words = typeof code === 'string' ? WORDS[code] : undefined;
  if (!words) return error;
  return new CodedError(words.code, `The ${role} ${file} ${words.what}. ${words.todo}`);
}
