// `npm run <script>` from a test set-up on every OS. npm is `npm.cmd` on
// Windows, which Node (≥ 18.20.2, CVE-2024-27980) refuses to start without a
// shell (spawn EINVAL); under `npm run …` the npm that started us is known
// (npm_execpath, its JavaScript entry), so it runs through this Node with no
// shell at all.
import { execFileSync } from 'node:child_process';

export interface NpmInvocation {
  file: string;
  args: string[];
  shell: boolean;
}

export function npmInvocation(script: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv, nodePath: string): NpmInvocation {
  const npmCli = env.npm_execpath;
  if (npmCli && /\.(c|m)?js$/.test(npmCli)) return { file: nodePath, args: [npmCli, 'run', script], shell: false };
  return { file: platform === 'win32' ? 'npm.cmd' : 'npm', args: ['run', script], shell: platform === 'win32' };
}

export function npmRun(script: string, cwd: string): void {
  const { file, args, shell } = npmInvocation(script, process.platform, process.env, process.execPath);
  execFileSync(file, args, { cwd, stdio: 'inherit', shell });
}
