// Scoped logger with one log file the user can open (userData/logs/main.log).
// Writes are queued and appended asynchronously so logging never stalls the
// event loop; the file rotates by size (main.log → main.log.1 → …) so it
// cannot grow without bound.
import { statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function isLogLevel(v: unknown): v is LogLevel {
  return typeof v === 'string' && v in LEVEL_RANK;
}

export interface Logger {
  readonly scope: string;
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
  /** A logger whose lines carry `scope` (nested scopes are joined with '.'). */
  child(scope: string): Logger;
}

export interface LogSinkOptions {
  dir: string;
  fileName?: string;
  /** Rotate when the file passes this size (default 5 MiB). */
  maxBytes?: number;
  /** Rotated files kept (default 3). */
  keep?: number;
  level?: LogLevel;
  /** Also print lines to stderr (CLI/web mode with --log). */
  mirrorToStderr?: boolean;
}

function formatData(data: unknown): string {
  if (data === undefined) return '';
  if (data instanceof Error) {
    const code = (data as { code?: unknown }).code;
    return ` ${typeof code === 'string' ? `[${code}] ` : ''}${data.stack ?? data.message}`;
  }
  try {
    return ` ${JSON.stringify(data)}`;
  } catch {
    return ` ${String(data)}`;
  }
}

export class LogSink {
  readonly file: string;
  readonly dir: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly level: number;
  private readonly mirror: boolean;
  private size: number;
  private queue: string[] = [];
  private writing: Promise<void> | null = null;
  private closed = false;

  constructor(opts: LogSinkOptions) {
    this.dir = opts.dir;
    this.file = path.join(opts.dir, opts.fileName ?? 'main.log');
    this.maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
    this.keep = opts.keep ?? 3;
    this.level = LEVEL_RANK[opts.level ?? 'info'];
    this.mirror = opts.mirrorToStderr ?? false;
    let size = 0;
    try {
      size = statSync(this.file).size; // once, at start-up
    } catch {
      size = 0;
    }
    this.size = size;
  }

  enabled(level: LogLevel): boolean {
    return LEVEL_RANK[level] >= this.level;
  }

  write(level: LogLevel, scope: string, message: string, data?: unknown): void {
    if (!this.enabled(level) || this.closed) return;
    const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} [${scope}] ${message}${formatData(data)}\n`;
    if (this.mirror) process.stderr.write(line);
    this.queue.push(line);
    if (!this.writing) this.writing = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const chunk = this.queue.join('');
        this.queue = [];
        if (this.size > 0 && this.size + chunk.length > this.maxBytes) await this.rotate();
        try {
          await fs.mkdir(this.dir, { recursive: true });
          await fs.appendFile(this.file, chunk);
          this.size += Buffer.byteLength(chunk);
        } catch (error) {
          // Logging must never take the app down (disk full, folder removed).
          process.stderr.write(`parakeet: cannot write ${this.file}: ${(error as Error).message}\n`);
        }
      }
    } finally {
      this.writing = null;
    }
  }

  private async rotate(): Promise<void> {
    for (let i = this.keep - 1; i >= 1; i -= 1) {
      await fs.rename(`${this.file}.${i}`, `${this.file}.${i + 1}`).catch(() => undefined);
    }
    await fs.rename(this.file, `${this.file}.1`).catch(() => undefined);
    await fs.rm(`${this.file}.${this.keep + 1}`, { force: true }).catch(() => undefined);
    this.size = 0;
  }

  /** Resolves when everything logged so far is on disk. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }
}

class ScopedLogger implements Logger {
  constructor(private readonly sink: LogSink, readonly scope: string) {}
  debug(message: string, data?: unknown): void {
    this.sink.write('debug', this.scope, message, data);
  }
  info(message: string, data?: unknown): void {
    this.sink.write('info', this.scope, message, data);
  }
  warn(message: string, data?: unknown): void {
    this.sink.write('warn', this.scope, message, data);
  }
  error(message: string, data?: unknown): void {
    this.sink.write('error', this.scope, message, data);
  }
  child(scope: string): Logger {
    return new ScopedLogger(this.sink, `${this.scope}.${scope}`);
  }
}

export function createLogger(sink: LogSink, scope = 'main'): Logger {
  return new ScopedLogger(sink, scope);
}

/** A logger that drops everything (unit tests of single services). */
export const nullLogger: Logger = {
  scope: 'null',
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => nullLogger,
};
