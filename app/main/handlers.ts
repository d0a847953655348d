// One handler per contract channel: the thin layer between a validated
// request and the services. The `Handlers` type makes a missing channel a
// compile error; the contract test checks the same at run time.
import { retranscribeMeeting } from './meeting/retranscribe.js';
import { historyMedia } from './media/history-media.js';
import { mediaUrl } from './media/media-url.js';
import type { DownloadSnapshot } from '../ipc/contract.js';
import { toEngineStatus } from './contract-mapping.js';
import { collectDiagnostics } from './diagnostics/collect.js';
import { CodedError } from '../../types/errors.js';
import type { Handlers } from './router.js';
import type { PlatformHooks, ServicesCore } from './service-types.js';
import { checkVocabulary } from './vocabulary-check.js';

function found(snapshot: DownloadSnapshot | undefined, id: string): DownloadSnapshot {
  if (!snapshot) throw new CodedError('UNKNOWN_MODEL', `No download of "${id}" is running or paused.`);
  return snapshot;
}

function notSupported(what: string): never {
  throw new CodedError('NOT_SUPPORTED', what);
}

export function createHandlers(s: ServicesCore, platform: PlatformHooks): Handlers {
  return {
    'app:info': () => s.info(),
    'app:openLogFolder': async () => {
      if (!platform.openPath) notSupported(`Opening folders is not available here; the log file is ${s.logSink.file}.`);
      await s.logSink.flush();
      await platform.openPath(s.logSink.dir);
    },
    'app:diagnostics': () => collectDiagnostics(s),

    'devices:list': () => s.devices.refresh(),
    'devices:select': ({ name }) => s.devices.select(name),
    'devices:selfTest': ({ name }) => s.devices.selfTest(name),

    'engine:status': () => toEngineStatus(s.engine.status()),
    'engine:loadModel': async ({ path }) => {
      await s.openModelFile(path);
      return toEngineStatus(s.engine.status());
    },

    'models:state': () => s.modelsState(),
    'models:catalog': () => s.models.getCatalog(),
    'models:firstRun': async ({ locale }) => {
      const [proposal, machine] = await Promise.all([
        s.models.firstRunProposal({ locale: locale ?? platform.locale?.() }),
        s.engine.engineAvailable ? s.machineSpeed() : Promise.resolve(null),
      ]);
      return { ...proposal, machine };
    },
    'models:download': ({ id }) => s.models.download(id),
    'models:pause': async ({ id }) => found(await s.models.pause(id), id),
    'models:resume': ({ id }) => s.models.resume(id),
    'models:cancel': async ({ id }) => found(await s.models.cancel(id), id),
    'models:remove': async ({ id }) => {
      // The engine maps the file: unload it before the file goes.
      if (s.engine.status().modelId === id) await s.engine.unloadModel();
      // "ok" for an id that names nothing would tell a caller a path-like id did something.
      const { removed } = await s.models.remove(id);
      if (!removed) throw new CodedError('UNKNOWN_MODEL', `No installed model has the id ${JSON.stringify(id.slice(0, 80))}.`);
      return s.modelsState();
    },
    'models:setActive': async ({ id }) => {
      await s.activateModel(id);
      return s.modelsState();
    },
    'models:import': async ({ path, nemoWeights }) => {
      try {
        return await s.models.importFile(path, { nemoWeights });
      } catch (error) {
        // The engine validates the copy being imported (<models>/.downloads/import-….gguf); name the user's file instead.
        if (error instanceof Error) error.message = error.message.replace(/\S*import-[0-9a-f]+\.gguf/g, path);
        throw error;
      }
    },
    'models:cancelImport': () => ({ cancelled: s.models.cancelImport() }),
    'models:pickFile': async (payload) => {
      if (!platform.pickModelFile) notSupported('There is no file dialog in web mode; type the path of the .gguf file instead.');
      return platform.pickModelFile(payload?.purpose ?? 'model');
    },

    'settings:get': () => s.settings.get(),
    'settings:set': (patch) => s.settings.set(patch),
    'vocabulary:check': ({ phrases }) => checkVocabulary(s.engine, phrases),

    'dictation:start': (options, context) => {
      // Both would record the same microphone, and the meeting already transcribes it (issue 44 item 3).
      if (s.meetings.current()) {
        throw new CodedError('MEETING_RECORDING', 'A meeting is recording this microphone, and its transcript already has what you say.');
      }
      return s.sessions.start(options, context.clientId);
    },
    // Only the client that started a session may end it; any client may read a summary (after a reconnect
    // the web page has a new client id).
    'dictation:stop': ({ sessionId, sentSamples }, context) => s.sessions.stop(sessionId, context.clientId, sentSamples),
    'dictation:cancel': ({ sessionId }, context) => s.sessions.cancel(sessionId, context.clientId),
    'dictation:summary': ({ sessionId }) => s.sessions.summary(sessionId),

    'files:transcribe': ({ path, options }) => s.files.transcribe(path, options),
    'files:cancel': ({ jobId }) => s.files.cancel(jobId),
    'files:pickFile': async () => {
      if (!platform.pickAudioFile) notSupported('There is no file dialog in web mode; type the full path of the .wav file instead.');
      return platform.pickAudioFile();
    },

    'history:list': (request) => s.history.list(request),
    'history:get': ({ id }) => s.history.get(id),
    'history:delete': ({ id }) => s.history.delete(id),
    'history:clear': () => s.history.clear(),
    'history:media': ({ id }) =>
      historyMedia(s.history, id, (target) => mediaUrl(s.options.mode === 'web' ? { mode: 'web', key: s.mediaKey } : { mode: 'electron' }, target)),
    'history:editSegment': ({ id, segmentId, text }) => s.history.editSegment(id, segmentId, text),
    'history:renameSpeaker': ({ id, from, to }) => s.history.renameSpeaker(id, from, to),

    'insert:test': ({ text, intoOwnWindow }) => s.insert.test(text, intoOwnWindow),
    'insert:check': () => s.insert.check(),

    // Web mode's uploads (the chunks arrive as binary frames on the bridge; Electron reads files in place).
    'files:uploadBegin': (request, context) => s.uploads.begin(context.clientId, request),
    'files:uploadCancel': ({ uploadId }, context) => s.uploads.cancel(context.clientId, uploadId),
    'files:transcribeUpload': ({ uploadId, options }, context) =>
      s.uploads.transcribe(context.clientId, uploadId, (file, o) => s.files.transcribe(file, o), options),
    'meeting:start': (options, context) => s.meetings.start(context.clientId, options),
    'meeting:stop': ({ meetingId, sentSamples, othersSentSamples }) => s.meetings.stop(meetingId, sentSamples, othersSentSamples),
    'meeting:marker': ({ meetingId, text }) => s.meetings.marker(meetingId, text),
    'meeting:current': () => s.meetings.current(),
    'meeting:checkSystemAudio': () => s.meetings.checkSystemAudio(),
    'meeting:attach': ({ meetingId }, context) => s.meetings.attach(meetingId, context.clientId),
    'meeting:retranscribe': ({ entryId, decoder }) => retranscribeMeeting({ engine: s.engine, history: s.history }, entryId, decoder ?? s.settings.get().decoder),
  };
}
