// Home-folder redaction for the diagnostics report: a bug report pasted into
// an issue tracker should not carry the user's account name. Every string in
// the report (paths in settings, the model path, log lines) goes through here.

/** Replaces `home` (as written raw and JSON-escaped, as log lines quote Windows paths) by `~` in `text`. */
export function redactHomeInText(text: string, home: string): string {
  // A home of "/" or "" would turn every path into nonsense; nothing to hide then.
  if (home.length < 2) return text;
  let out = text.split(home).join('~');
  const escaped = JSON.stringify(home).slice(1, -1);
  if (escaped !== home) out = out.split(escaped).join('~');
  return out;
}

/** A deep copy of `value` with every string redacted (plain data only: objects, arrays, primitives). */
export function redactHome<T>(value: T, home: string): T {
  return redactValue(value, home) as T;
}

function redactValue(value: unknown, home: string): unknown {
  if (typeof value === 'string') return redactHomeInText(value, home);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, home));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, home)]));
  }
  return value;
}
