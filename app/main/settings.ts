// Settings persisted in <userData>/settings.json: validated and migrated on
// load, written atomically (temp file + fsync + rename) on every change. A
// corrupt file never blocks start-up: it is kept as settings.json.bak, the
// defaults apply, and a notice tells the user.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Notice, Settings, SettingsPatch } from '../ipc/contract.js';
import { SETTINGS_VERSION, defaultSettings } from '../ipc/settings.js';
import { SETTINGS_CHECKS, SETTINGS_GROUPS, isPlainObject, validatePayload, type Check, type SettingsGroup } from '../ipc/validate.js';
import type { Logger } from './log.js';
import { TypedEmitter } from './util/typed-emitter.js';
import { writeJsonAtomic } from './util/atomic-file.js';

interface SettingsFile {
  version: number;
  settings: Settings;
}

export interface SettingsEvents {
  changed: [{ next: Settings; previous: Settings }];
}

export type WriteJson = (file: string, value: unknown) => Promise<void>;

export interface SettingsStoreOptions {
  /** How the file is written (default: atomically); tests inject a failing disk. */
  writeJson?: WriteJson;
}

/**
 * A failed save in the contract's terms and one sentence, as the history says it: the raw errno text
 * ("ENOSPC: no space left on device, open …") tells the user nothing they can act on.
 */
export function saveError(error: unknown, file: string): Error {
  const errno = (error as { code?: unknown } | null)?.code;
  const [code, why] =
    errno === 'ENOSPC' || errno === 'EDQUOT'
      ? ['DISK_FULL', 'the disk is full; free some space and change the setting again']
      : errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS'
        ? ['IO_ERROR', `${file} cannot be written (${errno === 'EROFS' ? 'read-only file system' : 'permission denied'})`]
        : ['IO_ERROR', `${file} could not be written${error instanceof Error ? ` (${error.message})` : ''}`];
  return Object.assign(new Error(`The setting was not saved: ${why}. The previous settings stay in effect.`, { cause: error }), { code });
}

/** Copies the fields of `raw` that pass their check onto `into`; returns the names of the ones that did not. */
function salvage<T extends object, K extends keyof T & string>(
  into: T,
  raw: Record<string, unknown>,
  checks: { [P in K]: Check<T[P]> },
  prefix: string,
): string[] {
  const rejected: string[] = [];
  for (const key of Object.keys(checks) as K[]) {
    if (!Object.hasOwn(raw, key)) continue; // a field added since the file was written: keep its default
    try {
      into[key] = checks[key](raw[key], key);
    } catch {
      rejected.push(`${prefix}${key}`);
    }
  }
  return rejected;
}

function salvageGroup<G extends SettingsGroup>(settings: Settings, group: G, raw: Record<string, unknown>): string[] {
  const checks = SETTINGS_GROUPS[group] as unknown as { [K in keyof Settings[G] & string]: Check<Settings[G][K]> };
  return salvage(settings[group], raw, checks, `${group}.`);
}

/** Brings any earlier layout up to the current one. Version 0 (no envelope) stored the settings object itself. */
export function migrate(raw: unknown): { settings: Record<string, unknown>; version: number } | null {
  if (!isPlainObject(raw)) return null;
  if (typeof raw.version === 'number' && isPlainObject(raw.settings)) return { settings: raw.settings, version: raw.version };
  if (!('version' in raw)) return { settings: raw, version: 0 };
  return null;
}

/** Settings from a parsed file: every valid field kept, every invalid one reset (and named). */
export function settingsFromFile(raw: unknown): { settings: Settings; rejected: string[]; version: number } | null {
  const migrated = migrate(raw);
  if (!migrated) return null;
  const settings = defaultSettings();
  const src = migrated.settings;
  const rejected = salvage(settings, src, SETTINGS_CHECKS, '');
  for (const group of Object.keys(SETTINGS_GROUPS) as SettingsGroup[]) {
    const raw = src[group];
    if (isPlainObject(raw)) rejected.push(...salvageGroup(settings, group, raw));
    else if (group in src) rejected.push(group);
  }
  return { settings, rejected, version: migrated.version };
}

export function applyPatch(current: Settings, patch: SettingsPatch): Settings {
  const { audio, dictation, streaming, history, insert, hotkey, text, desktop, ...flat } = patch;
  return {
    ...current,
    ...flat,
    audio: { ...current.audio, ...audio },
    dictation: { ...current.dictation, ...dictation },
    streaming: { ...current.streaming, ...streaming },
    history: { ...current.history, ...history },
    insert: { ...current.insert, ...insert },
    hotkey: { ...current.hotkey, ...hotkey },
    text: { ...current.text, ...text },
    desktop: { ...current.desktop, ...desktop },
  };
}

export class SettingsStore extends TypedEmitter<SettingsEvents> {
  readonly file: string;
  /** What happened while loading (reset file or fields), for the UI to show once. */
  readonly loadNotices: Notice[] = [];
  private current: Settings = defaultSettings();
  private writes: Promise<void> = Promise.resolve();

  private constructor(dir: string, private readonly log: Logger, private readonly writeJson: WriteJson) {
    super();
    this.file = path.join(dir, 'settings.json');
  }

  static async open(dir: string, log: Logger, options: SettingsStoreOptions = {}): Promise<SettingsStore> {
    const store = new SettingsStore(dir, log, options.writeJson ?? writeJsonAtomic);
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn('cannot read settings; using defaults', error);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const loaded = parsed === undefined ? null : settingsFromFile(parsed);
    if (!loaded) {
      await this.keepBackup();
      this.loadNotices.push({
        level: 'warning',
        code: 'SETTINGS_RESET',
        message: `The settings file could not be read, so the defaults apply. The old file was kept as ${this.file}.bak.`,
      });
      this.log.warn('settings file is corrupt; defaults apply', { backup: `${this.file}.bak` });
      await this.persist(this.current);
      return;
    }
    this.current = loaded.settings;
    if (loaded.rejected.length) {
      await this.keepBackup();
      this.loadNotices.push({
        level: 'warning',
        code: 'SETTINGS_RESET',
        message: `These settings had invalid values and were reset to their defaults: ${loaded.rejected.join(', ')}. ` +
          `The old file was kept as ${this.file}.bak.`,
      });
      this.log.warn('invalid settings reset to defaults', loaded.rejected);
    }
    if (loaded.rejected.length || loaded.version !== SETTINGS_VERSION) await this.persist(this.current);
  }

  private async keepBackup(): Promise<void> {
    await fs.copyFile(this.file, `${this.file}.bak`).catch((error: unknown) => this.log.warn('cannot keep settings backup', error));
  }

  private writeFile(settings: Settings): Promise<void> {
    const file: SettingsFile = { version: SETTINGS_VERSION, settings };
    return this.writeJson(this.file, file);
  }

  /** Runs changes one after another, so an older write never lands after a newer one and no change is lost. */
  private serialized<T>(run: () => Promise<T>): Promise<T> {
    const p = this.writes.then(run, run);
    this.writes = p.then(() => undefined, () => undefined);
    return p;
  }

  private persist(settings: Settings): Promise<void> {
    return this.serialized(() => this.writeFile(settings));
  }

  get(): Settings {
    const c = this.current;
    return applyPatch(c, {});
  }

  /** Validates, persists, then applies and announces a change (changes apply one after another, none is lost). */
  async set(patch: SettingsPatch): Promise<Settings> {
    const checked = validatePayload('settings:set', patch);
    if (!checked.ok) throw Object.assign(new Error(checked.error.message), { code: 'INVALID_PAYLOAD' });
    return this.serialized(async () => {
      const previous = this.get();
      const next = applyPatch(previous, checked.value);
      try {
        await this.writeFile(next);
      } catch (error) {
        throw saveError(error, this.file);
      }
      this.current = next;
      this.emit('changed', { next: this.get(), previous });
      return this.get();
    });
  }
}
