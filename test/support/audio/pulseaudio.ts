// A PulseAudio daemon of the test's own (no system or user server touched):
// its socket, runtime folder and home in a scratch folder, one null sink
// ("meeting_sink", 16 kHz mono, the default sink, so @DEFAULT_MONITOR@ is its
// monitor), no configuration file loaded. `env` is what parec/paplay need to
// reach it. start() returns the reason instead when it cannot run here.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface TestPulseAudio {
  env: NodeJS.ProcessEnv;
  /** Plays a WAV into the null sink (paplay, low latency); resolves when it has played. */
  play(wav: string): Promise<void>;
  stop(): Promise<void>;
}

const TOOLS = ['pulseaudio', 'pactl', 'parec', 'paplay'];

/** The environment that reaches the daemon startPulseAudio(dir) runs (known before it starts). */
export function pulseEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir, XDG_RUNTIME_DIR: dir, PULSE_SERVER: `unix:${join(dir, 'native')}` };
  delete env.DBUS_SESSION_BUS_ADDRESS;
  return env;
}

export async function startPulseAudio(dir: string): Promise<TestPulseAudio | string> {
  const missing = TOOLS.find((t) => spawnSync('which', [t]).status !== 0);
  if (missing) return `${missing} is not installed (apt-get install pulseaudio pulseaudio-utils)`;
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, 'native');
  const env = pulseEnv(dir);
  const daemon: ChildProcess = spawn('pulseaudio', [
    '-n', '-F', '/dev/null', '--daemonize=no', '--exit-idle-time=-1', '--use-pid-file=no', '--disable-shm=yes', '--log-target=stderr',
    '-L', `module-native-protocol-unix socket=${socket} auth-anonymous=1`,
    '-L', 'module-null-sink sink_name=meeting_sink rate=16000 channels=1',
  ], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  daemon.stderr!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => daemon.once('exit', () => resolve()));
  for (let i = 0; i < 50; i += 1) {
    if (daemon.exitCode !== null) return `pulseaudio exited at start (code ${daemon.exitCode}): ${log.trim().split('\n').at(-1) ?? ''}`;
    if (spawnSync('pactl', ['info'], { env }).status === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (spawnSync('pactl', ['info'], { env }).status !== 0) {
    daemon.kill('SIGKILL');
    return `pulseaudio did not answer within 5 s: ${log.trim().split('\n').at(-1) ?? ''}`;
  }
  spawnSync('pactl', ['set-default-sink', 'meeting_sink'], { env });
  return {
    env,
    play: (wav) => new Promise((resolve, reject) => {
      const p = spawn('paplay', ['--latency-msec=50', '--device=meeting_sink', wav], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      // A stuck sound server must fail the test, not hang it.
      const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
      p.stderr!.on('data', (c: Buffer) => (err += c.toString()));
      p.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`paplay ${wav} ${signal ? `was killed (${signal}, over 30 s)` : `exited ${code}`}: ${err}`));
      });
    }),
    async stop() {
      daemon.kill('SIGTERM');
      await exited;
    },
  };
}
