// The Devices view's device facts (issue 42 item 3) in web mode, against the engine's real device list:
// a GPU's driver and precision features where the engine reports them (a Vulkan build: run with
// PARAKEET_ADDON=<vulkan build>/Release/parakeet.node and, without a GPU, GGML_VK_VISIBLE_DEVICES=0 for
// lavapipe) and nothing where it does not (the CPU; every device of a CPU build); the self-test's measured
// speed on each device, the CPU's included; a GPU's one-time preparation; and Auto passing over a device
// that measured slower than the CPU, said in its row.
import type { DeviceInfo } from '../../app/ipc/contract.js';
import { expect, test } from './support/fixtures.js';

/** The row of one device in the Devices table. */
const rowOf = (app: import('@playwright/test').Page, name: string) => app.locator(`[data-testid="device-row"][data-device="${name}"]`);

test('each device shows the GPU properties the engine reports for it, and none where it reports none', async ({ app, server }) => {
  const devices = (await server.services.devices.refresh()).devices;
  await app.getByTestId('nav-devices').click();
  for (const device of devices) {
    const row = rowOf(app, device.name);
    await expect(row).toBeVisible();
    // lavapipe/llvmpipe is a GPU API on the CPU: never called a GPU in the Type column.
    if (device.softwareRenderer) await expect(row.getByTestId('device-type')).toHaveText(/^Software renderer/);
    if (!device.gpu) {
      await expect(row.getByTestId('device-gpu-driver')).toHaveCount(0);
      await expect(row.getByTestId('device-gpu-features')).toHaveCount(0);
      continue;
    }
    await expect(row.getByTestId('device-gpu-driver')).toContainText(`Vulkan ${device.gpu.apiVersion}`);
    await expect(row.getByTestId('device-gpu-driver')).toContainText(device.gpu.driverName);
    await expect(row.getByTestId('device-gpu-features').locator('li')).toHaveCount(3);
    const expected = { fp16: device.gpu.fp16, 'integer dot product': device.gpu.integerDot, 'cooperative matrix': device.gpu.cooperativeMatrix };
    for (const [label, supported] of Object.entries(expected)) {
      await expect(row.locator(`[data-feature="${label}"]`)).toHaveAttribute('data-supported', String(supported));
    }
  }
  const cpu = devices.find((d) => d.type === 'cpu');
  expect(cpu?.gpu, 'the CPU has no GPU properties (absent, not faked)').toBeUndefined();
});

test('the CPU\'s self-test shows its measured speed, the same figure the engine measured', async ({ app, server }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByTestId('nav-devices').click();
  const cpu = rowOf(app, 'CPU');
  await expect(cpu.getByTestId('device-speed')).toHaveCount(0);
  await cpu.getByRole('button', { name: 'Run self-test on CPU' }).click();
  await expect(cpu.getByTestId('self-test-result')).toHaveAttribute('data-passed', 'true');
  const measured = server.services.devices.state().selfTests.find((t) => t.device === 'CPU')?.speed;
  expect(measured, 'the engine measured the CPU').toBeTruthy();
  const ms = measured!.deviceMs < 1000 ? `${Math.round(measured!.deviceMs)} ms` : `${(measured!.deviceMs / 1000).toFixed(2)} s`;
  await expect(cpu.getByTestId('device-speed')).toHaveText(new RegExp(`^Speed: 1 s of audio in ${ms} \\([\\d.]+× real time\\)$`));
  await expect(cpu.getByTestId('device-auto-skipped')).toHaveCount(0);
  await expect(app.getByTestId('device-preparing')).toHaveCount(0);
});

test('a GPU: its first use is shown as the preparation, its speed against the CPU, and Auto\'s verdict on it', async ({ app, server }) => {
  test.setTimeout(900_000);
  const devices = (await server.services.devices.refresh()).devices;
  const gpu: DeviceInfo | undefined = devices.find((d) => d.type === 'gpu' || d.type === 'igpu');
  test.skip(!gpu, 'no GPU in this build (a Vulkan addon with a Vulkan device runs this part)');
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByTestId('nav-devices').click();
  const row = rowOf(app, gpu!.name);
  await row.getByRole('button', { name: `Run self-test on ${gpu!.name}` }).click();
  // A software renderer compiles its pipelines for minutes: the banner and the header chip say what is going on.
  if (gpu!.softwareRenderer) {
    await expect(app.getByTestId('device-preparing')).toHaveAttribute('data-device', gpu!.name);
    await expect(app.getByTestId('device-preparing')).toContainText('Preparing the GPU (once)');
    await expect(app.getByTestId('preparing-chip')).toContainText(gpu!.name);
  }
  await expect(row.getByTestId('self-test-result')).toHaveAttribute('data-passed', 'true', { timeout: 840_000 });
  await expect(app.getByTestId('device-preparing')).toHaveCount(0);
  await expect(row.getByTestId('device-prepared')).toContainText('GPU prepared in');
  await expect(row.getByTestId('device-speed')).toHaveText(/^Speed: 1 s of audio in .+ · [\d.]+× the CPU's speed$/);
  const state = server.services.devices.state();
  const speed = state.selfTests.find((t) => t.device === gpu!.name)?.speed;
  expect(speed).toBeTruthy();
  const slower = speed!.deviceMs > speed!.referenceMs;
  expect(state.autoSkipped.some((s) => s.name === gpu!.name)).toBe(slower);
  await expect(row.getByTestId('device-auto-skipped')).toHaveCount(slower ? 1 : 0);
  if (slower) await expect(row.getByTestId('device-auto-skipped')).toContainText('Auto skips it: measured slower than the CPU');
});
