#!/usr/bin/env node
// Renders the Marketplace icon (media/icon.png, 128 x 128) from scripts/icon/icon.svg in headless
// Chromium: the PNG is committed, this keeps it reproducible. Usage: node scripts/icon/render-icon.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../vscode-harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const svg = readFileSync(path.join(here, 'icon.svg'), 'utf8');
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
  await page.setContent(`<!DOCTYPE html><html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  writeFileSync(path.join(here, '..', '..', 'media', 'icon.png'), png);
  console.log(`media/icon.png: ${png.length} bytes`);
} finally {
  await browser.close();
}
