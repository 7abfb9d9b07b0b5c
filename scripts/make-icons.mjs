#!/usr/bin/env node
// Renders build/icon.svg to the PNG sizes electron-builder wants (Chromium via playwright-core),
// then packs icon.ico (PNG entries) and icon.icns (PNG entries) by hand: no extra dependencies.
//   node scripts/make-icons.mjs [--chromium /usr/bin/chromium]
import { chromium } from 'playwright-core';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const buildDir = join(root, 'build');
const argi = process.argv.indexOf('--chromium');
const executablePath = argi > 0 ? process.argv[argi + 1] : process.env.CHROMIUM_PATH || '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.error(`Chromium not found at ${executablePath}; pass --chromium PATH.`);
  process.exit(1);
}

const SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
const svg = await readFile(join(buildDir, 'icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
const png = new Map();
try {
  const page = await browser.newPage();
  for (const size of SIZES) {
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`);
    png.set(size, await page.screenshot({ omitBackground: true, type: 'png' }));
  }
} finally {
  await browser.close();
}

await mkdir(join(buildDir, 'icons'), { recursive: true });
for (const size of SIZES) await writeFile(join(buildDir, 'icons', `${size}x${size}.png`), png.get(size));
await writeFile(join(buildDir, 'icon.png'), png.get(1024));

/** ICO with PNG-compressed entries (Windows Vista and later read them). */
function ico(sizes) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(sizes.length, 4);
  const dir = Buffer.alloc(16 * sizes.length);
  let offset = 6 + dir.length;
  sizes.forEach((s, i) => {
    const data = png.get(s);
    const o = i * 16;
    dir.writeUInt8(s >= 256 ? 0 : s, o);
    dir.writeUInt8(s >= 256 ? 0 : s, o + 1);
    dir.writeUInt16LE(1, o + 4); // colour planes
    dir.writeUInt16LE(32, o + 6); // bits per pixel
    dir.writeUInt32LE(data.length, o + 8);
    dir.writeUInt32LE(offset, o + 12);
    offset += data.length;
  });
  return Buffer.concat([header, dir, ...sizes.map((s) => png.get(s))]);
}

/** ICNS with PNG entries: ic07 128, ic08 256, ic09 512, ic10 1024 (512@2x), ic11 32 (16@2x), ic12 64, ic13 256@2x, ic14 512@2x. */
function icns() {
  const entries = [
    ['icp4', 16],
    ['icp5', 32],
    ['ic11', 32],
    ['icp6', 64],
    ['ic12', 64],
    ['ic07', 128],
    ['ic08', 256],
    ['ic13', 256],
    ['ic09', 512],
    ['ic14', 512],
    ['ic10', 1024],
  ].map(([type, size]) => {
    const data = png.get(size);
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(data.length + 8, 4);
    return Buffer.concat([head, data]);
  });
  const body = Buffer.concat(entries);
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([head, body]);
}

await writeFile(join(buildDir, 'icon.ico'), ico([16, 24, 32, 48, 64, 128, 256]));
await writeFile(join(buildDir, 'icon.icns'), icns());
console.log(`Icons written to build/: icon.png (1024), icon.ico, icon.icns, icons/{${SIZES.join(',')}}.png`);
