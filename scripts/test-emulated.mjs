// The engine on CPUs this machine is not: the C++ tests and a real transcription through the addon, run
// under QEMU's user-mode emulator (qemu-x86_64) with CPU models that have no AVX-512. The kernel class is
// then the one the engine's CPU probe picks (never PARAKEET_CPU_CLASS): the VEX-coded AVX-VNNI rows
// (`*_avx_vnni`, Alder Lake and later) execute, which an AVX-512 machine never does (it runs their `_evex`
// build), and an AVX-512 instruction anywhere on an AVX2-only CPU (a compiler flag, an inlined helper, the
// probe itself) is a SIGILL here instead of a launch crash on a user's laptop.
//
//   npm run test:emulated                         both CPU models below
//   npm run test:emulated -- --models=EPYC-Rome   only these (comma-separated QEMU -cpu names from the list)
//   --no-build                                    use the build folder as it is
//   --counts-out=file                             the totals as JSON (scripts/test.mjs's PARAKEET_EXTRA_COUNTS)
//
// It builds its own folder (native/build-emulated, or $PARAKEET_EMULATED_BUILD_DIR) with ggml's CPU code
// for any AVX2 CPU (PARAKEET_GGML_CPU=avx2; the default build's -march=native ggml would stop at the first
// AVX-512 instruction). Needs qemu-x86_64 ≥ 7.2 (its TCG emulates AVX2, FMA, F16C and AVX-VNNI, never
// AVX-512); on Debian 12: `sudo apt-get install -t bookworm-backports qemu-user`. $PARAKEET_QEMU names
// another binary. The spoken clip comes from espeak-ng and sox, as the digits tests'.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const buildDir = resolve(process.env.PARAKEET_EMULATED_BUILD_DIR ?? join(root, 'native', 'build-emulated'));
const qemu = process.env.PARAKEET_QEMU ?? 'qemu-x86_64';
const digitsModel = process.env.PARAKEET_DIGITS_MODEL ?? join(root, '..', 'shared', 'models', 'digits-en-ctc-test.gguf');
const CLASSES = ['scalar', 'avx2', 'avx_vnni', 'avx512', 'avx512_vnni', 'amx'];

/**
 * The CPU models and the class the engine's probe must pick on each (what its rows then are). `needs`: a
 * CPUID bit (as cpu_probe prints it) that this QEMU may not emulate; without it the model is reported
 * skipped. QEMU 10.0's TCG has no AVX-VNNI (it masks the bit and a VEX VPDPBUSD is SIGILL), so `max` is
 * then an AVX2 CPU and the VEX rows cannot run; a QEMU that emulates it runs them here unchanged.
 */
const CPU_MODELS = [
  { cpu: 'EPYC-Rome', expect: 'avx2', what: 'AMD Zen 2: AVX2, FMA, F16C; no AVX-VNNI, no AVX-512' },
  { cpu: 'max', expect: 'avx_vnni', needs: 'avx_vnni', what: "everything QEMU's TCG emulates; AVX2 + VEX AVX-VNNI as on Alder Lake, no AVX-512" },
];
/** The clip (espeak-ng, en-us) and the words it says. */
const CLIP_TEXT = 'seven three zero nine four two';
/** The digits model (F32) loaded as auto (14-bit on these classes), per-channel int8 and Q8_0: each its own kernels. */
const WEIGHT_TYPES = ['auto', 'int8', 'q8_0'];

const totals = { passed: 0, failed: 0, skipped: 0, failures: [] };
const pass = () => totals.passed++;
const fail = (what) => (totals.failed++, totals.failures.push(what), console.log(`  ✗ ${what}`));

/** How a child ended, in words: 'exit 1', 'SIGILL (an instruction this CPU model lacks)', 'timed out'. */
function ending(code, signal, timedOut) {
  if (timedOut) return 'timed out';
  if (signal === 'SIGILL') return 'SIGILL (an instruction this CPU model lacks)';
  return signal ? `killed by ${signal}` : `exit ${code}`;
}

// The class must come from the probe: a cap from the caller's shell would force it.
const childEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'PARAKEET_CPU_CLASS'));

/** Runs a command to its end without a shell; resolves {code, signal, output, timedOut}. */
function runChild(command, commandArgs, timeoutMs = 20 * 60_000) {
  return new Promise((done) => {
    const child = spawn(command, commandArgs, { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '', timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), timeoutMs);
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (error) => (clearTimeout(timer), done({ code: null, signal: null, output: error.message, timedOut })));
    child.on('close', (code, signal) => (clearTimeout(timer), done({ code, signal, output, timedOut })));
  });
}
const emulated = (cpu, command, commandArgs, timeoutMs) => runChild(qemu, ['-cpu', cpu, command, ...commandArgs], timeoutMs);
const tail = (text) => text.trim().split('\n').filter((line) => !line.includes("TCG doesn't support requested feature")).slice(-8).join('\n');

/** Seconds of this process's finished children's CPU time (/proc/self/stat cutime + cstime, Linux). */
function childrenCpuSeconds() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;  // USER_HZ: 100 on Linux
}
/** Starts a clock; calling it says the wall and children's CPU seconds since (a shared machine's wall time misleads). */
function stepClock() {
  const wall = performance.now(), cpu = childrenCpuSeconds();
  return () => `${((performance.now() - wall) / 1000).toFixed(0)} s wall, ${(childrenCpuSeconds() - cpu).toFixed(0)} s CPU`;
}

function qemuVersion() {
  const r = spawnSync(qemu, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return null;
  return /version ([\d.]+)/.exec(r.stdout)?.[1] ?? r.stdout.split('\n')[0];
}

function build() {
  const env = { ...process.env, PARAKEET_BUILD_DIR: buildDir, PARAKEET_GGML_CPU: 'avx2', PARAKEET_BUILD_TESTS: '1' };
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build-native.mjs')], { cwd: root, env, stdio: 'inherit' });
  return r.status === 0;
}

/** The ctest cases of the build folder, by name (`ctest -N` lists them without running anything). */
function testCases() {
  const r = spawnSync('ctest', ['-N', '--test-dir', buildDir], { encoding: 'utf8' });
  return [...(r.stdout ?? '').matchAll(/Test +#\d+: (\S+)/g)].map((m) => m[1]);
}

/** Each kernel row's id and CPU class, from the registry's own table (parakeet_kernel_table, run natively). */
function kernelRowClasses() {
  const r = spawnSync(join(buildDir, 'tests', 'parakeet_kernel_table'), { encoding: 'utf8' });
  return new Map([...(r.stdout ?? '').matchAll(/^\| `([a-z0-9_]+)` \| [^|]* \| ([a-z0-9_]+) \|/gm)].map((m) => [m[1], m[2]]));
}

/**
 * Whether a kernel row must run or must skip on a CPU of class `cls`: a row of that class or below runs,
 * except the `_evex` builds (EVEX-coded: they need AVX-512 VL and VNNI, which no emulated model has).
 */
function rowMustRun(id, rowClass, cls) {
  return CLASSES.indexOf(rowClass) <= CLASSES.indexOf(cls) && !id.endsWith('_evex');
}

/** Runs `items` through `work` with `jobs` at a time, in order of start. */
async function pool(items, jobs, work) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
  return results;
}

/** The probe's key=value line under the model, as an object. */
async function probe(cpu) {
  const r = await emulated(cpu, join(buildDir, 'tests', 'parakeet_cpu_probe'), [], 120_000);
  const line = r.output.split('\n').find((l) => l.startsWith('class='));
  if (r.code !== 0 || !line) return { error: `${ending(r.code, r.signal, r.timedOut)}: ${tail(r.output)}` };
  return Object.fromEntries(line.split(' ').map((pair) => pair.split('=')));
}

/** A case's outcome on class `cls`: 'passed', 'skipped', or what went wrong. A kernel row must run where its class does. */
function outcome(name, { code, signal, timedOut }, rowClasses, cls) {
  const rowId = name.startsWith('kernel_row_') ? name.slice('kernel_row_'.length) : null;
  const mustRun = rowId && rowClasses.has(rowId) ? rowMustRun(rowId, rowClasses.get(rowId), cls) : null;
  if (code === 0) return mustRun === false ? `ran, but its row (class ${rowClasses.get(rowId)}) must not run on class ${cls}` : 'passed';
  if (code === 77) return mustRun === true ? `skipped on class ${cls}, where its row must run` : 'skipped';
  return ending(code, signal, timedOut);
}

async function runCases(model, cases, rowClasses, cls) {
  const exe = join(buildDir, 'tests', 'parakeet_engine_tests');
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const results = await pool(cases, 2, async (name) => ({ name, ...(await emulated(model.cpu, exe, [name])) }));
  for (const r of results) {
    const result = outcome(r.name, r, rowClasses, cls);
    const counted = result === 'passed' || result === 'skipped' ? result : 'failed';
    counts[counted]++;
    if (counted === 'failed') fail(`${model.cpu}: ${r.name}: ${result}\n${tail(r.output)}`);
    else totals[counted]++;
  }
  const rowsRan = results.filter((r) => r.code === 0 && r.name.startsWith('kernel_row_')).map((r) => r.name.slice('kernel_row_'.length));
  console.log(`[emulated] ${model.cpu}: C++ tests ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  console.log(`[emulated] ${model.cpu}: kernel rows that ran: ${rowsRan.join(' ') || 'none'}`);
}

/** A 16 kHz float32 clip of CLIP_TEXT (espeak-ng, sox) in `dir`, or an error. */
function makeClip(dir) {
  const wav = join(dir, 'clip.wav'), f32 = join(dir, 'clip.f32');
  for (const [tool, toolArgs] of [
    ['espeak-ng', ['-v', 'en-us', '-s', '160', '-w', wav, CLIP_TEXT]],
    ['sox', [wav, '-r', '16000', '-c', '1', '-e', 'floating-point', '-b', '32', '-t', 'raw', f32]],
  ]) {
    const r = spawnSync(tool, toolArgs, { encoding: 'utf8' });
    if (r.error || r.status !== 0) return { error: `${tool} failed (${r.error?.message ?? r.stderr.trim()}); it makes the spoken clip` };
  }
  return { f32 };
}

/** The transcription child's JSON line, or an error with how the child ended. */
async function transcribe(cpu, clip, weightType) {
  const childArgs = [join(root, 'scripts', 'emulated-transcribe.mjs'), join(buildDir, 'Release', 'parakeet.node'), digitsModel, clip, weightType];
  const r = cpu ? await emulated(cpu, process.execPath, childArgs) : await runChild(process.execPath, childArgs);
  const line = r.output.split('\n').find((l) => l.startsWith('{'));
  if (r.code !== 0 || !line) return { error: `${ending(r.code, r.signal, r.timedOut)}: ${tail(r.output)}` };
  return JSON.parse(line);
}

/** Kernel ids above class `cls` (a 512-bit, AMX, EVEX or 512-bit VNNI kernel; avx_vnni's on an avx2 CPU). */
function kernelsAbove(kernels, cls) {
  const above = (id) => /avx512|amx|evex/.test(id) || (/_vnni$/.test(id) && !id.endsWith('_avx_vnni')) || (cls === 'avx2' && id.endsWith('_avx_vnni'));
  return Object.keys(kernels).filter(above);
}

function checkTranscription(model, cls, weightType, native, got) {
  const name = `${model.cpu}: the digits model (weightType ${weightType}) through the addon under node`;
  if (got.error) return fail(`${name}: ${got.error}`);
  const ownKernels = Object.keys(got.kernels).filter((id) => id.endsWith(cls === 'avx2' ? '_avx2' : '_avx_vnni'));
  console.log(`[emulated] ${model.cpu}, ${weightType}: "${got.text}" (native: "${native.text}"); kernels ${Object.keys(got.kernels).join(' ')}; ggml CPU features ${got.cpuFeatures.join(' ')}`);
  if (got.text !== native.text) return fail(`${name}: heard "${got.text}", natively "${native.text}"`);
  if (kernelsAbove(got.kernels, cls).length) return fail(`${name}: ran ${kernelsAbove(got.kernels, cls).join(', ')} on class ${cls}`);
  if (!ownKernels.length) return fail(`${name}: no ${cls} kernel ran (kernels: ${Object.keys(got.kernels).join(', ') || 'none'})`);
  if (JSON.stringify(got.tokens) !== JSON.stringify(native.tokens)) console.log(`[emulated] ${model.cpu}: token frames differ from native (text equal)`);
  pass();
}

async function main() {
  const names = option('models')?.split(',');
  const models = names ? CPU_MODELS.filter((m) => names.includes(m.cpu)) : CPU_MODELS;
  if (names && models.length !== names.length) {
    console.error(`[emulated] --models: known CPU models are ${CPU_MODELS.map((m) => m.cpu).join(', ')}`);
    return fail('unknown CPU model in --models');
  }
  const version = qemuVersion();
  if (!version) {
    return fail(`${qemu} is not installed (QEMU ≥ 7.2; Debian 12: sudo apt-get install -t bookworm-backports qemu-user)`);
  }
  console.log(`[emulated] ${qemu} ${version}; build folder ${buildDir} (ggml for any AVX2 CPU)`);
  const buildClock = stepClock();
  if (!args.includes('--no-build') && !build()) return fail(`the build in ${buildDir} failed (see above)`);
  console.log(`[emulated] build: ${buildClock()}`);
  const cases = testCases();
  const rowClasses = kernelRowClasses();
  if (!cases.length || !rowClasses.size) return fail(`no C++ test cases or kernel rows in ${buildDir}: build it (drop --no-build)`);

  const scratch = mkdtempSync(join(tmpdir(), 'parakeet-emulated-'));
  try {
    const clip = existsSync(digitsModel) ? makeClip(scratch) : { error: `the digits model is not at ${digitsModel} (PARAKEET_DIGITS_MODEL)` };
    const natives = new Map();
    for (const weightType of WEIGHT_TYPES) {
      const native = clip.error ? clip : await transcribe(null, clip.f32, weightType);
      if (!native.error) console.log(`[emulated] native (this CPU), ${weightType}: "${native.text}" (spoken: "${CLIP_TEXT}")`);
      if (!native.error && !native.text.trim()) native.error = 'the native run heard nothing: the clip cannot compare anything';
      natives.set(weightType, native);
    }

    for (const model of models) {
      console.log(`[emulated] -cpu ${model.cpu} (${model.what}): expecting class ${model.expect}`);
      const clock = stepClock();
      const seen = await probe(model.cpu);
      if (!seen.error) console.log(`[emulated] ${model.cpu}: probe: ${Object.entries(seen).map(([k, v]) => `${k}=${v}`).join(' ')}`);
      if (!seen.error && model.needs && seen[model.needs] !== '1') {
        totals.skipped++;
        console.log(`[emulated] ${model.cpu}: skipped: QEMU ${version} does not emulate ${model.needs} (the guest's CPUID has no such bit)`);
        continue;
      }
      if (seen.error) fail(`${model.cpu}: the CPU probe did not run: ${seen.error}`);
      else if (seen.class !== model.expect) fail(`${model.cpu}: the probe picked class ${seen.class}, not ${model.expect}`);
      else pass();
      const cls = seen.class ?? model.expect;
      await runCases(model, cases, rowClasses, cls);
      for (const [weightType, native] of natives) {
        if (native.error) fail(`${model.cpu}: the native transcription (${weightType}) to compare with: ${native.error}`);
        else checkTranscription(model, cls, weightType, native, await transcribe(model.cpu, clip.f32, weightType));
      }
      console.log(`[emulated] ${model.cpu}: ${clock()}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
const countsOut = option('counts-out');
if (countsOut) writeFileSync(countsOut, JSON.stringify(totals));
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exitCode = totals.failed > 0 ? 1 : 0;
