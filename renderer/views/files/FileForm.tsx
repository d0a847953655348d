// Which file, which decoder, Transcribe. Electron opens the native dialog
// (files:pickFile); a browser cannot hand out file paths, so web mode asks
// for one, as the model picker does. Transcribe stays disabled, with the
// reason next to it, until a model is loaded and the path can be sent. Web
// mode also takes a file dropped on the form or chosen with the browser's
// picker: it is uploaded to the engine's machine, then transcribed there.
import { useState, type DragEvent, type FormEvent } from 'react';
import type { FileTranscribeOptions } from '../../../app/ipc/contract.js';
import { isAbsolutePath } from '../../../app/ipc/validate.js';
import { Button } from '../../components/Button.js';
import * as actions from '../../store/actions.js';
import { pickAudioFile, transcribeFile, transcribeUpload, unqueueFile } from '../../store/commands.js';
import { engineUsable } from '../../store/engine.js';
import { useApp } from '../../store/hooks.js';
import { appStore } from '../../store/store.js';

type DecoderChoice = NonNullable<FileTranscribeOptions['decoder']>;

const DECODERS: { value: DecoderChoice; label: string }[] = [
  { value: 'auto', label: 'Auto' },
  { value: 'tdt', label: 'TDT' },
  { value: 'rnnt', label: 'RNN-T' },
  { value: 'ctc', label: 'CTC' },
];

/** Pasted paths often come quoted (Windows "Copy as path", shells): the quotes are not part of the name. */
export function cleanPath(raw: string): string {
  const trimmed = raw.trim();
  const quoted = /^(["'])(.*)\1$/.exec(trimmed);
  return quoted ? quoted[2].trim() : trimmed;
}

/** Why Transcribe cannot run now, or null when it can (`path` null: an uploaded file, no path to check). */
function useBlocker(path: string | null, decoder: DecoderChoice): { text: string; toModels?: boolean } | null {
  const status = useApp((s) => s.engine.status);
  const decoders = status?.model?.decoders;
  if (!status) return { text: 'Connecting to the engine…' };
  if (status.state === 'loading') return { text: 'Wait for the model to finish loading.' };
  if (!status.model) return { text: 'Load a model in Models first.', toModels: true };
  if (!engineUsable(status)) return { text: 'The engine is restarting; try again in a moment.' };
  if (decoder !== 'auto' && decoders && !decoders.includes(decoder)) {
    return { text: `This model has no ${decoder.toUpperCase()} decoder; choose another one (or Auto).` };
  }
  if (path === null) return null;
  if (!path) return { text: 'Choose an audio file.' };
  if (!isAbsolutePath(path)) return { text: 'Type the full path, starting with / (or a drive letter such as C:\\ on Windows).' };
  return null;
}

/** Files waiting for the running one, in order, each with Remove. */
function FileQueue() {
  const queue = useApp((s) => s.files.queue);
  if (queue.length === 0) return null;
  return (
    <div className="file-queue" data-testid="file-queue">
      <h4 id="file-queue-title">Waiting ({queue.length})</h4>
      <ol aria-labelledby="file-queue-title">
        {queue.map((q) => (
          <li key={q.key} data-testid="file-queued">
            <span className="mono">{q.name}</span>
            <Button variant="quiet" onClick={() => unqueueFile(q.key)}>
              Remove<span className="visually-hidden"> {q.name} from the queue</span>
            </Button>
          </li>
        ))}
      </ol>
    </div>
  );
}

export function FileForm() {
  const mode = useApp((s) => s.engine.mode ?? s.engine.app?.mode ?? 'web');
  const running = useApp((s) => s.files.job.phase === 'running');
  const settingsDecoder = useApp((s) => s.settings.values?.decoder ?? 'auto');
  const model = useApp((s) => s.engine.status?.model ?? null);
  // The last path this window used, so coming back to the view keeps it.
  const [rawPath, setRawPath] = useState(() => appStore.getState().files.job.path);
  // null until the user picks one: then the Settings decoder (which may load after this view) is the default.
  const [chosenDecoder, setChosenDecoder] = useState<DecoderChoice | null>(null);
  const decoder = chosenDecoder ?? settingsDecoder;
  const speakerModel = useApp((s) => s.settings.values?.diarizerPath ?? null);
  const [speakersChecked, setSpeakers] = useState(false);
  const speakers = speakersChecked && speakerModel !== null;
  const path = cleanPath(rawPath);
  const blocker = useBlocker(path, decoder);
  // A dropped or picked file needs no path: only the engine must be ready.
  const uploadBlocker = useBlocker(null, decoder);
  const [dragging, setDragging] = useState(false);
  const web = mode !== 'electron';

  const upload = (file: File | undefined) => {
    if (!file || uploadBlocker) return;
    void transcribeUpload(file, decoder, speakers);
  };
  const dropHandlers = web
    ? {
        onDragOver: (e: DragEvent) => {
          if (!e.dataTransfer.types.includes('Files')) return;
          e.preventDefault();
          e.dataTransfer.dropEffect = uploadBlocker ? 'none' : 'copy';
          setDragging(true);
        },
        onDragLeave: () => setDragging(false),
        onDrop: (e: DragEvent) => {
          e.preventDefault();
          setDragging(false);
          upload(e.dataTransfer.files[0]);
        },
      }
    : {};

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!blocker) void transcribeFile(path, decoder, speakers);
  };

  return (
    <form className={`card file-form${dragging ? ' file-drop-active' : ''}`} onSubmit={submit} aria-labelledby="file-form-title" data-testid="file-drop" {...dropHandlers}>
      <h3 id="file-form-title">Transcribe a recording</h3>
      <div className="file-form-row">
        {mode === 'electron' ? (
          <div className="inline-form file-source">
            <span className="field-label">Audio file</span>
            <div className="inline-form-row file-pick">
              <Button
                onClick={async () => {
                  const picked = await pickAudioFile();
                  if (picked) setRawPath(picked);
                }}
              >
                Open an audio file…
              </Button>
              <span className="mono file-path" data-testid="file-path">
                {path || 'No file chosen'}
              </span>
            </div>
          </div>
        ) : (
          <div className="inline-form file-source">
            <label htmlFor="file-path">Audio file path on this machine</label>
            <input
              id="file-path"
              type="text"
              spellCheck={false}
              autoComplete="off"
              placeholder="/home/me/Recordings/meeting.wav"
              value={rawPath}
              onChange={(e) => setRawPath(e.target.value)}
            />
          </div>
        )}
        {web ? (
          <div className="inline-form file-source">
            <label htmlFor="file-upload">Or send a file from this browser</label>
            <input
              id="file-upload"
              type="file"
              accept="audio/*,video/*,.wav,.flac,.mp3,.m4a,.ogg,.opus,.webm"
              disabled={uploadBlocker !== null}
              aria-describedby="file-upload-hint"
              onChange={(e) => {
                upload(e.target.files?.[0]);
                e.target.value = '';
              }}
            />
            <p className="field-hint" id="file-upload-hint">Or drop it here. It is uploaded to the machine running the engine, transcribed there, then deleted.</p>
          </div>
        ) : null}
        <div className="inline-form">
          <label htmlFor="file-decoder">Decoder</label>
          <select id="file-decoder" value={decoder} onChange={(e) => setChosenDecoder(e.target.value as DecoderChoice)}>
            {DECODERS.map((d) => {
              const missing = d.value !== 'auto' && model !== null && !model.decoders.includes(d.value);
              const label = d.value === 'auto' && model ? `Auto (${model.defaultDecoder.toUpperCase()})` : d.label;
              return (
                <option key={d.value} value={d.value} disabled={missing}>
                  {missing ? `${label} — not in this model` : label}
                </option>
              );
            })}
          </select>
        </div>
        <div className="inline-form">
          <input id="file-speakers" type="checkbox" checked={speakers} disabled={speakerModel === null}
            onChange={(e) => setSpeakers(e.target.checked)} aria-describedby="file-speakers-hint" />
          <label htmlFor="file-speakers">Speakers</label>
          <span className="field-hint" id="file-speakers-hint">
            {speakerModel === null ? 'Choose a speaker model in Settings › Speakers to tell speakers apart.' : 'Each word gets its speaker (up to 4).'}
          </span>
        </div>
        <Button type="submit" variant="primary" disabled={blocker !== null} aria-describedby={blocker ? 'file-blocker' : undefined}>
          {running ? 'Add to queue' : 'Transcribe'}
        </Button>
      </div>
      <FileQueue />
      {blocker ? (
        <p className="hint" id="file-blocker" data-testid="file-blocker">
          {blocker.toModels ? (
            <>
              Load a model in{' '}
              <button type="button" className="link" onClick={() => actions.showView('models')}>
                Models
              </button>{' '}
              first.
            </>
          ) : (
            blocker.text
          )}
        </p>
      ) : (
        <p className="hint">
          WAV (PCM 8/16/24/32-bit or float, any rate and channels) is read directly; m4a, mp3, flac, ogg/opus and the
          audio of videos are converted by ffmpeg or sox if this machine has one (e.g.{' '}
          <span className="mono">sudo apt-get install ffmpeg</span>).
        </p>
      )}
    </form>
  );
}
