// A Logger that keeps its lines in memory (tests read what was logged).
import type { Logger } from '../../app/main/log.js';

export interface LoggedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  scope: string;
  message: string;
  data?: unknown;
}

export function recordingLogger(lines: LoggedLine[] = [], scope = 'main'): Logger & { lines: LoggedLine[] } {
  const at = (level: LoggedLine['level']) => (message: string, data?: unknown): void => {
    lines.push({ level, scope, message, ...(data === undefined ? {} : { data }) });
  };
  return {
    scope,
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (child: string) => recordingLogger(lines, `${scope}.${child}`),
  };
}
