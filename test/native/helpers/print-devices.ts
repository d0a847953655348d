// Child-process probe: prints {devices, selection} as JSON: the names listDevices() shows in this process's
// environment and selectDevice() with no argument.
import { listDevices, selectDevice } from '../../../native/index.js';

process.stdout.write(`${JSON.stringify({ devices: listDevices().map((d) => d.name), selection: selectDevice() })}\n`);
