/**
 * Browser mode: `npm run serve -- [--port N] [--state-dir DIR]`. Serves the built renderer and the
 * contract over a WebSocket on 127.0.0.1, and prints the one URL (with its token) that may use it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { onPresses, takeSignals } from '../cli/interrupts.js';
import { createCrawlService } from '../service/index.js';
import { defaultStateDir } from '../service/catalog/state-dir.js';
import { startWebServer } from './server.js';
import { readServeAddress, writeServeAddress } from './address.js';

const USAGE = `Usage: npm run serve -- [--port N] [--state-dir DIR]

  --port N          port on 127.0.0.1 (default: the last one, else a free one)
  --state-dir DIR   where crawls are kept (default: ${defaultStateDir()})
  --renderer-dir D  the built renderer (default: dist/renderer)
`;

/** Where the built renderer is, from dist/electron/web.js or from electron/web/index.ts run by tsx. */
function findRendererDir(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, '..', 'renderer'), join(here, '..', '..', 'dist', 'renderer')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return null;
}

/** Parses the arguments, starts the server and keeps it running until Ctrl-C; resolves to an exit code. */
export async function main(argv: string[]): Promise<number> {
  let values: { port?: string; 'state-dir'?: string; 'renderer-dir'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        'state-dir': { type: 'string' },
        'renderer-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`spinneret serve: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`spinneret serve: --port must be a whole number from 0 to 65535, not "${values.port}".\n`);
    return 2;
  }
  const rendererDir = values['renderer-dir'] ? resolve(values['renderer-dir']) : findRendererDir();
  if (!rendererDir || !existsSync(join(rendererDir, 'index.html'))) {
    process.stderr.write('spinneret serve: the renderer is not built. Run `npm run build` first (npm run serve does it for you).\n');
    return 1;
  }
  const stateDir = resolve(values['state-dir'] ?? defaultStateDir());
  const service = createCrawlService({ stateDir });
  // The last start's port and token, so its URL still works.
  const saved = readServeAddress(stateDir);
  const token = saved?.token ?? randomBytes(32).toString('base64url');
  // Without --port, the last start's port; taken meanwhile, a free one.
  const lastPort = values.port === undefined ? (saved?.port ?? 0) : 0;
  let server;
  try {
    server = await startWebServer({ service, rendererDir, port: lastPort || port, token }).catch((error: { code?: string }) => {
      if (lastPort === 0 || error.code !== 'EADDRINUSE') throw error;
      return startWebServer({ service, rendererDir, port: 0, token });
    });
  } catch (error) {
    await service.close();
    const code = (error as { code?: string }).code;
    process.stderr.write(
      code === 'EADDRINUSE'
        ? `spinneret serve: port ${port} is in use. Pick another with --port, or leave it out for a free one.\n`
        : `spinneret serve: could not start the server: ${(error as Error).message}\n`,
    );
    return 1;
  }
  const saveError = writeServeAddress(stateDir, { port: Number(new URL(server.url).port), token });
  if (saveError) process.stderr.write(`spinneret serve: ${saveError}\n`);
  process.stdout.write(
    `Spinneret is running in browser mode.\n  Crawls: ${stateDir}\n  Open:   ${server.url}\nPress Ctrl-C to pause running crawls and stop.\n`,
  );

  const running = server;
  // The first Ctrl-C (or SIGTERM) pauses the running crawls and stops; a second one quits at once.
  let offPresses = () => {};
  await new Promise<void>((done) => {
    offPresses = onPresses(STOP_SIGNALS, (n) => {
      if (n === 1) {
        process.stdout.write('\nPausing running crawls… (Ctrl-C again quits at once)\n');
        return done();
      }
      process.stderr.write('spinneret serve: quitting at once; paused crawls resume from their last saved progress.\n');
      process.exit(130);
    });
  });
  await running.close();
  await service.close();
  offPresses();
  process.stdout.write('Stopped. Paused crawls resume from the app, the CLI or npm run serve.\n');
  return 0;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  takeSignals(STOP_SIGNALS);
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`spinneret serve: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
