// Module hooks (node:module register) for the launch simulation: the bare
// specifier "electron" resolves to the recording fake; everything else as usual.
let fakeUrl = '';

export function initialize(data) {
  fakeUrl = data.fakeUrl;
}

export function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: fakeUrl, shortCircuit: true };
  return next(specifier, context);
}
