// The computer's own audio output ("Others") on Linux: the monitor source of
// the default sink, read by the sound server's own recorder spawned as a child
// process — `parec` (pulseaudio-utils; PulseAudio, and PipeWire through
// pipewire-pulse) or, without it, `pw-record` (PipeWire) — as raw float32 mono
// at 16 kHz on its stdout. Chromium's loopback capture is silent on Linux, and
// a native PipeWire binding would be a second addon for what these tools do.
// Windows and macOS capture through Electron's getDisplayMedia loopback in the
// renderer instead (see README: not available in this build).
//
// Buffers are bounded by the pipe: each stdout chunk is handed on at once
// (whole samples; 0–3 leftover bytes wait for the next chunk).
import { spawn, type ChildProcess } from 'node:child_process';

export interface SourceProblem {
  reason: string;
  /** The tool's own last words ("parec: Connection refused"), for the log only. */
  detail?: string;
  action: string;
}

export interface SystemAudioHandlers {
  onFrame(frame: Float32Array): void;
  /** The capture ended by itself (the tool exited): why, or null when stop() asked for it. Called once. */
  onEnd(problem: SourceProblem | null): void;
}

export interface SystemAudioCapture {
  /** The tool and the source it records ("parec @DEFAULT_MONITOR@"). */
  readonly description: string;
  stop(): Promise<void>;
}

export type SystemAudioStarter = (sampleRate: number, handlers: SystemAudioHandlers) => SystemAudioCapture;

interface Tool {
  command: string;
  args: (rate: number) => string[];
  description: string;
}

const TOOLS: readonly Tool[] = [
  {
    command: 'parec',
    description: 'parec @DEFAULT_MONITOR@',
    args: (rate) => [
      '--device=@DEFAULT_MONITOR@', '--format=float32le', `--rate=${rate}`, '--channels=1', '--raw', '--latency-msec=50',
      '--client-name=Parakeet Desktop', '--stream-name=Meeting (system audio)',
    ],
  },
  {
    // Untested here (no PipeWire on the build machines): the default sink's monitor via stream.capture.sink.
    command: 'pw-record',
    description: 'pw-record (default sink monitor)',
    args: (rate) => ['--rate', String(rate), '--channels', '1', '--format', 'f32', '-P', '{ stream.capture.sink = true }', '-'],
  },
];

export const SYSTEM_AUDIO_MISSING: SourceProblem = {
  reason: 'The system audio cannot be recorded: neither parec (PulseAudio/PipeWire) nor pw-record (PipeWire) is installed.',
  action: 'Install pulseaudio-utils (Debian/Ubuntu: sudo apt install pulseaudio-utils) or pipewire-bin, then start the meeting again.',
};

/**
 * What a tool's exit means for the user, from its stderr. The tool's own words ("parec: connection refused")
 * stay out of the known cases' reasons (the service logs them); an unknown exit quotes them, as the only clue.
 */
export function describeExit(command: string, code: number | null, signal: NodeJS.Signals | null, stderr: string): SourceProblem {
  const said = stderr.trim().split('\n').filter(Boolean).at(-1) ?? '';
  if (/connection (refused|failure)|no such file or directory|failed to connect|can't connect/i.test(said)) {
    return {
      reason: 'The system audio cannot be recorded: no PulseAudio or PipeWire sound server answered.',
      detail: `${command}: ${said}`,
      action: 'Start the sound server (systemctl --user start pipewire-pulse, or pulseaudio --start), then start the meeting again.',
    };
  }
  if (/no such entity|not found|does not exist/i.test(said)) {
    return {
      reason: 'The system audio cannot be recorded: the sound server has no output device to monitor.',
      detail: `${command}: ${said}`,
      action: 'Choose an output device in the system sound settings, then start the meeting again.',
    };
  }
  return {
    reason: `The system audio recording stopped: ${command} ${signal ? `was killed (${signal})` : `exited with code ${code}`}${said ? ` (${said})` : ''}.`,
    action: 'Check the system sound settings, then start a new meeting.',
  };
}

/** The Linux system audio: parec, else pw-record, with `env` (PULSE_SERVER, XDG_RUNTIME_DIR) as the sound server's address. */
export function linuxSystemAudio(env: NodeJS.ProcessEnv = process.env): SystemAudioStarter {
  return (sampleRate, handlers) => {
    let ended = false;
    let stopping = false;
    let child: ChildProcess | null = null;
    let description = TOOLS[0]!.description;
    const end = (problem: SourceProblem | null): void => {
      if (ended) return;
      ended = true;
      handlers.onEnd(stopping ? null : problem);
    };
    const launch = (index: number): void => {
      const tool = TOOLS[index];
      if (!tool) {
        end(SYSTEM_AUDIO_MISSING);
        return;
      }
      description = tool.description;
      const proc = spawn(tool.command, tool.args(sampleRate), { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      let leftover = Buffer.alloc(0);
      let stderr = '';
      proc.stdout!.on('data', (chunk: Buffer) => {
        const bytes = leftover.length ? Buffer.concat([leftover, chunk]) : chunk;
        const whole = bytes.length - (bytes.length % 4);
        leftover = Buffer.from(bytes.subarray(whole));
        if (whole === 0 || stopping) return;
        // An aligned copy: a Buffer from the pool may start at any byte offset.
        const frame = new Float32Array(whole / 4);
        new Uint8Array(frame.buffer).set(bytes.subarray(0, whole));
        handlers.onFrame(frame);
      });
      proc.stderr!.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-2000);
      });
      proc.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') launch(index + 1);
        else end({ reason: `The system audio cannot be recorded: ${tool.command} could not start (${error.message}).`, action: 'Check the installation of the sound tools.' });
      });
      // 'close', not 'exit': it comes after stdout has delivered every byte, so a tool that writes and exits at once
      // loses no samples (its last data can otherwise arrive after 'exit').
      proc.on('close', (code, signal) => {
        if (child !== proc) return;
        child = null;
        end(describeExit(tool.command, code, signal, stderr));
      });
    };
    launch(0);
    return {
      get description() {
        return description;
      },
      async stop() {
        stopping = true;
        const proc = child;
        if (!proc || proc.exitCode !== null) {
          end(null);
          return;
        }
        const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 2000);
        await exited;
        clearTimeout(timer);
        end(null);
      },
    };
  };
}
