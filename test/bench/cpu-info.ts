// What the benchmarks say about the CPU they ran on, beyond os.cpus()' model name.
import { readFileSync } from 'node:fs';

// "AMD EPYC" names Zen 2 to Zen 5 alike: the family and model numbers tell them
// apart (25/17 Zen 4 Genoa, 26/2 Zen 5 Turin; 6/106 Ice Lake-SP, 6/143 Sapphire Rapids).
export function cpuFamilyModel(): { family: number; model: number } | undefined {
  try {
    const lines = readFileSync('/proc/cpuinfo', 'utf8').split('\n');
    const field = (name: string) => Number(lines.find((l) => new RegExp(`^${name}\\s*:`).test(l))?.split(':')[1]);
    const family = field('cpu family');
    const model = field('model');
    return Number.isInteger(family) && Number.isInteger(model) ? { family, model } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which logical CPUs share a physical core, as the kernel (Linux) sees them: "cpu0 cpu1 on separate
 * cores" or "cpu0,cpu1 share a core (SMT)". Two threads on one core share its FMA units and L2, so a
 * kernel that keeps one thread's FMAs busy gains little from the second. A virtual machine shows its
 * vCPUs as the hypervisor presents them, which need not be how they sit on the host.
 */
export function coreSharing(): string {
  const groups = new Set<string>();
  let cpus = 0;
  for (let cpu = 0; ; cpu++) {
    let siblings: string;
    try {
      siblings = readFileSync(`/sys/devices/system/cpu/cpu${cpu}/topology/thread_siblings_list`, 'utf8').trim();
    } catch {
      break;
    }
    cpus++;
    groups.add(siblings);
  }
  if (cpus === 0) return 'core topology unknown (no /sys/devices/system/cpu)';
  const shared = [...groups].filter((g) => /[,-]/.test(g));
  return shared.length === 0
    ? `${cpus} logical CPUs, each its own core (no SMT siblings as the OS sees them)`
    : `${cpus} logical CPUs; SMT siblings (one physical core each): ${shared.join(' | ')}`;
}
