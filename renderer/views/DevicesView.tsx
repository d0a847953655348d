// Devices: every compute device the engine sees, with type, backend and
// memory (and a GPU's driver and precision features); which one is selected,
// which one the engine really uses, which one ran the last decode, which ones
// failed, each one's last known-answer self-test (run on request here;
// automatically after a load on a GPU) with its measured speed against the
// CPU, and a GPU's one-time preparation. Switching is one click.
import type { DeviceInfo, DevicesState } from '../../app/ipc/contract.js';
import { Button } from '../components/Button.js';
import { formatBytes } from '../format.js';
import { refreshDevices, runSelfTest, selectDevice } from '../store/commands.js';
import { selfTestOf } from '../store/devices.js';
import { useApp } from '../store/hooks.js';
import { gpuDriverText, gpuFeatures } from '../../app/shared/gpu-facts.js';
import { autoSkipReason, backendNotLoadedText, deviceChoosable, deviceTypeText, measuredSpeed, preparedText, preparingText, speedText } from './devices/device-facts.js';
import { selfTestText, selfTestTitle } from './devices/self-test-text.js';

function memoryText(d: DeviceInfo): string {
  if (!d.memoryTotal) return 'unknown';
  // The CPU's figure is the OS's "available" (Linux: MemAvailable, what `free` shows); a GPU's is the driver's free.
  return `${formatBytes(d.memoryFree)} ${d.type === 'cpu' ? 'available' : 'free'} of ${formatBytes(d.memoryTotal)}`;
}

function Badges({ device, state }: { device: DeviceInfo; state: DevicesState }) {
  const name = device.name.toLowerCase();
  const selected = state.selected.toLowerCase() === name;
  const active = state.active?.device.name.toLowerCase() === name;
  const ran = state.lastRan.some((r) => r.toLowerCase() === name);
  const failed = state.failed.find((f) => f.name.toLowerCase() === name);
  return (
    <ul className="badges" aria-label="Status">
      {selected ? <li className="badge badge-selected">Selected</li> : null}
      {active ? <li className="badge badge-active">In use</li> : null}
      {ran ? (
        <li className="badge badge-ran" data-testid="ran-badge">
          Ran the last decode
        </li>
      ) : null}
      {failed ? (
        <li className="badge badge-failed">
          Failed: {failed.reason}
        </li>
      ) : null}
    </ul>
  );
}

function SelfTestCell({ device, state, busy, testing }: { device: DeviceInfo; state: DevicesState; busy: boolean; testing: boolean }) {
  const last = selfTestOf(state, device.name);
  const failed = state.failed.some((f) => f.name.toLowerCase() === device.name.toLowerCase());
  // A GPU that already failed is not touched again in this run (it may crash the engine); the CPU stays testable.
  const why = !state.active
    ? 'Load a model first: the self-test runs the loaded model.'
    : failed && device.type !== 'cpu'
      ? 'This device failed in this run; restart the app to test it again.'
      : undefined;
  return (
    <div className="self-test">
      <Button
        disabled={busy || why !== undefined}
        aria-label={`${testing ? 'Testing…' : 'Run self-test'} on ${device.name}`}
        onClick={() => void runSelfTest(device.name)}
      >
        {testing ? 'Testing…' : 'Run self-test'}
      </Button>
      {last ? (
        <p
          className={last.passed ? 'self-test-result' : 'self-test-result warn-text'}
          data-testid="self-test-result"
          data-passed={String(last.passed)}
        >
          {selfTestText(last, state.active?.device.name ?? null)}
        </p>
      ) : null}
      {last ? <p className="field-hint self-test-detail">{selfTestTitle(last)}</p> : null}
      <SpeedFacts device={device} state={state} />
      {why ? <p className="field-hint" data-testid="self-test-why">{why}</p> : null}
    </div>
  );
}

/** The measured speed (self-test), Auto passing over a slower device, and a GPU's first-use preparation time. */
function SpeedFacts({ device, state }: { device: DeviceInfo; state: DevicesState }) {
  const speed = measuredSpeed(state, device);
  const skipped = autoSkipReason(state, device.name);
  const prepared = preparedText(state, device.name);
  return (
    <>
      {speed ? <p className="self-test-result" data-testid="device-speed">Speed: {speedText(speed)}</p> : null}
      {skipped ? (
        <p className="self-test-result warn-text" data-testid="device-auto-skipped">
          Auto skips it: {skipped}. Choose it with Use to run on it anyway.
        </p>
      ) : null}
      {prepared ? <p className="field-hint" data-testid="device-prepared">{prepared}</p> : null}
    </>
  );
}

/** A GPU's own properties (driver, API version, precision features); nothing for the CPU or a build without them. */
function GpuFacts({ device }: { device: DeviceInfo }) {
  if (!device.gpu) return null;
  return (
    <>
      <span className="device-desc" data-testid="device-gpu-driver">{gpuDriverText(device.gpu)}</span>
      <ul className="badges device-features" aria-label={`${device.name} GPU features`} data-testid="device-gpu-features">
        {gpuFeatures(device.gpu).map((f) => (
          <li key={f.label} className={f.supported ? 'badge badge-active' : 'badge'} data-feature={f.label} data-supported={String(f.supported)}>
            {f.label}: {f.supported ? 'yes' : 'no'}
          </li>
        ))}
      </ul>
    </>
  );
}

function DeviceRow({
  device, state, switching, testing,
}: { device: DeviceInfo; state: DevicesState; switching: string | null; testing: string | null }) {
  const selected = state.selected.toLowerCase() === device.name.toLowerCase();
  return (
    <tr data-testid="device-row" data-device={device.name}>
      <th scope="row">
        <span className="device-name">{device.name}</span>
        <span className="device-desc">{device.description}</span>
        {device.softwareRenderer ? (
          <span className="device-desc" data-testid="device-software">software renderer: runs on the CPU, used only when chosen here</span>
        ) : null}
        <GpuFacts device={device} />
        {device.type === 'cpu' && device.cpuThreads ? (
          <span className="device-desc">
            {device.cpuThreads} threads{device.cpuFeatures.length ? ` · ${device.cpuFeatures.join(' ')}` : ''}
          </span>
        ) : null}
      </th>
      <td data-testid="device-type">{deviceTypeText(device)}</td>
      <td data-testid="device-backend">{device.backend}</td>
      <td data-testid="device-memory">{memoryText(device)}</td>
      <td>
        <Badges device={device} state={state} />
      </td>
      <td>
        <SelfTestCell device={device} state={state} busy={testing !== null || switching !== null} testing={testing === device.name} />
      </td>
      <td>
        <Button
          disabled={selected || !deviceChoosable(state, device) || switching !== null || testing !== null}
          aria-label={`${switching === device.name ? 'Switching…' : selected ? 'Selected' : 'Use'}: ${device.name}`}
          onClick={() => void selectDevice(device.name)}
        >
          {switching === device.name ? 'Switching…' : selected ? 'Selected' : 'Use'}
        </Button>
      </td>
    </tr>
  );
}

function ActiveSummary({ state }: { state: DevicesState }) {
  const active = state.active;
  const vad = useApp((s) => s.engine.status?.vad ?? null);
  return (
    <div className="card device-summary" data-testid="device-summary">
      <p>
        Choice: <strong>{state.selected === 'auto' ? 'Auto (first GPU, else CPU)' : state.selected}</strong>
      </p>
      <p>
        Engine uses: <strong data-testid="active-device">{active ? active.device.name : 'nothing yet (no model loaded)'}</strong>
        {active?.fellBack ? <span className="warn-text"> — fell back: {active.reason}</span> : null}
      </p>
      <p>
        Last decode ran on:{' '}
        <strong data-testid="last-ran">{state.lastRan.length ? state.lastRan.join(' + ') : 'no decode yet'}</strong>
      </p>
      {state.backendsNotLoaded.map((line) => (
        <p key={line} className="warn-text" data-testid="backend-not-loaded">
          {backendNotLoadedText(line)}
        </p>
      ))}
      {state.preparing ? (
        <p className="warn-text" role="status" data-testid="device-preparing" data-device={state.preparing.device}>
          {preparingText(state.preparing.device)}
        </p>
      ) : null}
      <p>
        Voice activity: <strong data-testid="vad-detector" data-detector={vad?.detector ?? 'unknown'}>{vad ? vad.text : 'not known yet'}</strong>
      </p>
    </div>
  );
}

export function DevicesView() {
  const state = useApp((s) => s.devices.state);
  const switching = useApp((s) => s.devices.switching);
  const testing = useApp((s) => s.devices.testing);
  return (
    <section className="view view-devices" aria-labelledby="devices-title">
      <header className="view-header">
        <h2 id="devices-title">Devices</h2>
        <p className="muted">
          Where the speech engine computes. The engine reports what actually ran each decode; a self-test compares a
          device's output for a fixed signal with the CPU's.
        </p>
      </header>
      {!state ? (
        <p className="muted">Reading devices…</p>
      ) : (
        <>
          <ActiveSummary state={state} />
          <div className="card">
            <div className="card-title-row">
              <h3>All devices</h3>
              <div className="row-actions">
                <Button
                  disabled={state.selected === 'auto' || switching !== null}
                  onClick={() => void selectDevice('auto')}
                  aria-label="Use Auto (automatic device choice)"
                >
                  Use Auto
                </Button>
                <Button variant="quiet" onClick={() => void refreshDevices()}>
                  Refresh
                </Button>
              </div>
            </div>
            <div className="table-scroll">
            <table className="table" data-testid="devices-table">
              <thead>
                <tr>
                  <th scope="col">Device</th>
                  <th scope="col">Type</th>
                  <th scope="col">Backend</th>
                  <th scope="col">Memory</th>
                  <th scope="col">Status</th>
                  <th scope="col">Self-test</th>
                  <th scope="col">
                    <span className="visually-hidden">Action</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {state.devices.map((d) => (
                  <DeviceRow key={d.name} device={d} state={state} switching={switching} testing={testing} />
                ))}
              </tbody>
            </table>
            </div>
          </div>
        </>
      )}
    </section>
  );
}
