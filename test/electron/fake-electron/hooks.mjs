// Module resolution hook: `import ... from 'electron'` gets the fake beside this file, never the
// real package (whose index.js would try to download the binary).
const fake = new URL('./electron.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: fake, shortCircuit: true };
  return next(specifier, context);
}
