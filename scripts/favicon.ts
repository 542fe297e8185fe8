/**
 * Makes `site/public/favicon.ico` from `site/public/favicon.svg` (run after editing the SVG: `npx tsx scripts/favicon.ts`):
 * Debian's chromium draws the SVG at 16, 32 and 48 px, and the PNGs are packed into one ICO (an ICO may hold PNG
 * images: a 6-byte header, a 16-byte entry per image, then the images).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { PROJECT_ROOT } from '../project.ts';

const SIZES = [16, 32, 48];
const PUBLIC = join(PROJECT_ROOT, 'site', 'public');

async function drawPngs(svg: string): Promise<Buffer[]> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    const pngs: Buffer[] = [];
    for (const size of SIZES) {
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`);
      pngs.push(await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
    }
    return pngs;
  } finally {
    await browser.close();
  }
}

function toIco(pngs: Buffer[]): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(pngs.length, 4);
  let offset = 6 + 16 * pngs.length;
  const entries = pngs.map((png, index) => {
    const size = SIZES[index]!;
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size % 256, 0);
    entry.writeUInt8(size % 256, 1);
    entry.writeUInt16LE(1, 4);
    entry.writeUInt16LE(32, 6);
    entry.writeUInt32LE(png.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += png.length;
    return entry;
  });
  return Buffer.concat([header, ...entries, ...pngs]);
}

const pngs = await drawPngs(readFileSync(join(PUBLIC, 'favicon.svg'), 'utf8'));
writeFileSync(join(PUBLIC, 'favicon.ico'), toIco(pngs));
console.log(`wrote site/public/favicon.ico (${SIZES.join(', ')} px)`);
