// Insert failures in words the user can act on: which tool is missing and the
// package that provides it, or why the OS refused the keystrokes.

/** The package that provides each external tool (Debian/Ubuntu names; Fedora and Arch use the same ones). */
const PACKAGES: Record<string, string> = {
  xdotool: 'xdotool',
  xclip: 'xclip',
  wtype: 'wtype',
  'wl-copy': 'wl-clipboard',
  'wl-paste': 'wl-clipboard',
  ydotool: 'ydotool',
  xprop: 'x11-utils',
};

export type InsertErrorCode = 'TOOL_MISSING' | 'TOOL_FAILED' | 'PERMISSION' | 'UNSUPPORTED';

export class InsertError extends Error {
  constructor(readonly reason: InsertErrorCode, message: string, readonly action?: string) {
    super(message);
    this.name = 'InsertError';
  }
}

export function missingToolError(tool: string): InsertError {
  const pkg = PACKAGES[tool];
  if (!pkg) return new InsertError('TOOL_MISSING', `"${tool}" was not found, so text cannot be inserted into other apps.`);
  return new InsertError(
    'TOOL_MISSING',
    `Inserting text into other apps needs "${tool}", which is not installed.`,
    `Install it with: sudo apt-get install ${pkg} (the package is also called ${pkg} on Fedora and Arch).`,
  );
}

/** macOS answers -1719/-25211 or "not allowed" when the app lacks the Accessibility permission. */
const ACCESSIBILITY = /not allowed (to send keystrokes|assistive access)|-1719|-25211|1002/i;

export function toolFailedError(tool: string, code: number | null, stderr: string): InsertError {
  const detail = stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300);
  if (tool === 'osascript' && ACCESSIBILITY.test(stderr)) {
    return new InsertError(
      'PERMISSION',
      'macOS did not allow Parakeet to send keystrokes.',
      'Open System Settings → Privacy & Security → Accessibility and turn Parakeet Desktop on, then try again.',
    );
  }
  return new InsertError('TOOL_FAILED', `"${tool}" failed (exit ${code ?? 'signal'})${detail ? `: ${detail}` : ''}.`);
}
