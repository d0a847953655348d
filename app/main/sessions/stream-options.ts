// A streaming model's stream options from the user's streaming settings (the latency preset and the
// language): what the model has is used, anything else falls back to the model's default with a reason.
import type { StreamingSettings } from '../../ipc/contract.js';
import type { ModelInfo } from '../../../native/index.js';
import type { EngineStreamOptions } from '../../engine-process/protocol.js';

type StreamModel = Pick<ModelInfo, 'attContextPresets' | 'hasPrompt' | 'languages'>;

/** "left,right" of a preset (the settings' spelling). */
export function presetKey(preset: readonly [number, number]): string {
  return `${preset[0]},${preset[1]}`;
}

export function streamOptionsFor(model: StreamModel, settings: StreamingSettings, warn: (message: string) => void): EngineStreamOptions {
  const options: EngineStreamOptions = {};
  if (settings.preset !== 'default') {
    const preset = model.attContextPresets.find((p) => presetKey(p) === settings.preset);
    if (preset) options.attContext = [preset[0], preset[1]];
    else warn(`streaming preset ${settings.preset} is not one of this model's (${model.attContextPresets.map(presetKey).join(' ')}): using its default`);
  }
  if (model.hasPrompt) {
    if (settings.language === 'auto' || model.languages.includes(settings.language)) options.language = settings.language;
    else warn(`language ${settings.language} is not one of this model's locales: using auto`);
  }
  return options;
}
