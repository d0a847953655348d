// Child-process probe: prints {selection, loaded} as JSON, where `selection` is
// selectDevice() with no argument (so $PARAKEET_DEVICE decides) and `loaded` is
// info().device of a model loaded without a device option (when a path is given).
import { Model, selectDevice, type DeviceSelection } from '../../../native/index.js';

const modelPath = process.argv[2];
const selection = selectDevice();
let loaded: DeviceSelection | null = null;
if (modelPath) {
  const model = await Model.load(modelPath);
  loaded = model.info().device;
  model.dispose();
}
process.stdout.write(`${JSON.stringify({ selection, loaded, env: process.env.PARAKEET_DEVICE ?? null })}\n`);
