// What the Devices view says about a device's last self-test, in words: the
// figures when it passed, the reason and the consequence when it failed. DOM-free.
import type { DeviceSelfTest } from '../../../app/ipc/contract.js';
import { formatMs, formatRelativeError } from '../../format.js';

const REFERENCE: Record<DeviceSelfTest['reference'], string> = {
  cpu: 'the CPU',
  'cpu-scheduled': "the CPU's scheduler path",
};

export function selfTestText(test: DeviceSelfTest, runningOn: string | null): string {
  if (test.passed) {
    const error = test.relL2 === null ? 'no figure' : `relative error ${formatRelativeError(test.relL2)}`;
    const tokens = test.tokensMatch ? 'same tokens' : 'one token differs (a near tie)';
    return `Passed: matches ${REFERENCE[test.reference]}: ${error}, ${tokens}, ${formatMs(test.durationMs)}`;
  }
  const where = runningOn ? `, running on ${runningOn}` : '';
  return `Failed: ${test.detail} — marked unusable for this run${where}`;
}

/** The tooltip: when, why it ran, and the bound it was held to. */
export function selfTestTitle(test: DeviceSelfTest): string {
  const why = test.trigger === 'load' ? 'automatically after the model was loaded' : 'on request';
  return `Self-test ${why} at ${new Date(test.at).toLocaleTimeString()}; allowed relative error ${formatRelativeError(test.tolerance)}. ${test.detail}`;
}
