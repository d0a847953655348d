// Web mode: sends a file the user dropped or picked to the engine's machine
// over the bridge (a browser page cannot give a path). files:uploadBegin
// returns a ticket; the file is then read one slice at a time and sent as
// chunk frames, never more than the ticket's window ahead of the server's
// `files:upload` acknowledgements, so memory stays bounded on both sides
// whatever the file's size. Resolves with the ticket once the server has the
// whole file on disk. DOM-free: the source only needs size and slice().
import type { IpcError, ParakeetApi, Result, UploadProgress, UploadTicket } from '../../app/ipc/contract.js';

/** What a File (or Blob with a name) offers. */
export interface UploadSource {
  readonly name: string;
  readonly size: number;
  slice(start: number, end: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

export interface UploadOptions {
  signal?: AbortSignal;
  /** Bytes the server has written so far. */
  onProgress?: (receivedBytes: number, sizeBytes: number) => void;
  /** No acknowledgement for this long fails the upload (the connection is gone or the server stuck). */
  stallMs?: number;
}

type UploadApi = Pick<ParakeetApi, 'invoke' | 'on' | 'sendUploadChunk'>;

const failed = (code: string, message: string): Result<never> => ({ ok: false, error: { code, message } });

export async function uploadFile(api: UploadApi, source: UploadSource, options: UploadOptions = {}): Promise<Result<UploadTicket>> {
  const send = api.sendUploadChunk?.bind(api);
  if (!send) return failed('NOT_SUPPORTED', 'Uploading needs the web mode bridge; the desktop app opens files in place.');
  if (options.signal?.aborted) return failed('ABORTED', 'The upload was cancelled.');
  const begun = await api.invoke('files:uploadBegin', { name: source.name, sizeBytes: source.size });
  if (!begun.ok) return begun;
  const ticket = begun.value;
  const stallMs = options.stallMs ?? 30_000;

  let acked = 0;
  let done = false;
  let error: IpcError | null = null;
  let wake: (() => void) | null = null;
  const poke = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const off = api.on('files:upload', (p: UploadProgress) => {
    if (p.uploadId !== ticket.uploadId) return;
    if (p.error) error = p.error;
    acked = Math.max(acked, p.receivedBytes);
    done ||= p.done;
    options.onProgress?.(acked, source.size);
    poke();
  });
  const onAbort = (): void => poke();
  options.signal?.addEventListener('abort', onAbort);

  /** Waits for an acknowledgement (or an abort) until `ready` holds; false when it stalled. */
  const waitUntil = async (ready: () => boolean): Promise<boolean> => {
    while (!ready() && !error && !options.signal?.aborted) {
      const before = acked;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, stallMs);
      });
      clearTimeout(timer);
      if (acked === before && !ready() && !error && !options.signal?.aborted && !done) return false;
    }
    return true;
  };

  const cancel = async (): Promise<void> => {
    await api.invoke('files:uploadCancel', { uploadId: ticket.uploadId });
  };

  try {
    let offset = 0;
    while (offset < source.size) {
      const length = Math.min(ticket.chunkBytes, source.size - offset);
      if (!(await waitUntil(() => offset - acked + length <= ticket.windowBytes))) {
        await cancel();
        return failed('UPLOAD_FAILED', `The upload of ${source.name} stalled: the server acknowledged nothing for ${Math.round(stallMs / 1000)} s.`);
      }
      if (error) return { ok: false, error };
      if (options.signal?.aborted) break;
      const bytes = await source.slice(offset, offset + length).arrayBuffer();
      if (bytes.byteLength !== length) {
        await cancel();
        return failed('UPLOAD_FAILED', `${source.name} changed while it was being read (${bytes.byteLength} bytes where ${length} were expected).`);
      }
      if (!send(ticket.uploadId, offset, bytes)) {
        return failed('DISCONNECTED', `The connection dropped while ${source.name} was uploading; the partial upload was discarded. Try again.`);
      }
      offset += length;
    }
    if (!options.signal?.aborted && !(await waitUntil(() => done))) {
      await cancel();
      return failed('UPLOAD_FAILED', `The upload of ${source.name} stalled before the server confirmed the last bytes.`);
    }
    if (error) return { ok: false, error };
    if (options.signal?.aborted) {
      await cancel();
      return failed('ABORTED', 'The upload was cancelled.');
    }
    return { ok: true, value: ticket };
  } finally {
    off();
    options.signal?.removeEventListener('abort', onAbort);
  }
}
