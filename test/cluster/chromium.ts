/**
 * The Chromium the browser tests drive: test/cluster/chromium.sh finds one (STEPWISE_CHROMIUM, a
 * `chromium` on PATH, or Debian's package unpacked into the cache without root, on first use),
 * and playwright-core launches it headless by its path. Playwright downloads no browser of its
 * own: playwright-core has no install step.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

const SCRIPT = fileURLToPath(new URL('./chromium.sh', import.meta.url));

let resolved: Promise<string> | undefined;

/** The browser's path; provisions it on the first call (progress on our stderr). */
export function chromiumPath(): Promise<string> {
  resolved ??= new Promise((resolve, reject) => {
    const child = spawn(SCRIPT, [], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const path = out.trim().split('\n').pop() ?? '';
      if (code === 0 && path) resolve(path);
      else reject(new Error(`${SCRIPT} exited with code ${code}: no Chromium to test with`));
    });
  });
  return resolved;
}

/** A headless Chromium. --no-sandbox: the tests may run as root (no user namespaces in CI). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

// `node test/cluster/chromium.ts [out.png]`: provision, launch, load a data: URL, screenshot.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? '.stepwise/screenshots/chromium-check.png';
  const started = Date.now();
  const browser = await launchChromium();
  const page = await browser.newPage();
  await page.goto('data:text/html,<h1 id="t">Stepwise sees this page</h1>');
  const text = await page.textContent('#t');
  await page.screenshot({ path: out });
  console.log(`${browser.version()}: "${text}" in ${Date.now() - started} ms; screenshot ${out}`);
  await browser.close();
}
