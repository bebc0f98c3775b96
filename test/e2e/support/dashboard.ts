// `kubectl stepwise dashboard` as people start it (through kubectl, the plugin first on PATH),
// kept running while a file's tests drive it from a real browser; and the screenshots a person
// can look at after the run (.stepwise/screenshots/, not committed).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../../cluster/state.ts';
import { PLUGIN_DIR } from './plugin.ts';

export const SCREENSHOTS = join(REPO_ROOT, '.stepwise', 'screenshots');

export interface RunningDashboard {
  /** The printed address, with its token. */
  readonly url: string;
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Starts the dashboard on a free port and resolves with the address it prints. */
export function startDashboard(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningDashboard> {
  const child: ChildProcess = spawn('kubectl', ['stepwise', 'dashboard', '--port', '0', ...args], {
    env: { ...process.env, ...env, PATH: `${PLUGIN_DIR}${delimiter}${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.once('exit', () => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    const onData = (chunk: string): void => {
      out += chunk;
      const url = /Open: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out)?.[1];
      if (url === undefined) return;
      child.stdout?.off('data', onData);
      resolve({
        url,
        origin: new URL(url).origin,
        output: () => out,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', (c: string) => (out += c));
    void exited.then(() => reject(new Error(`the dashboard exited before serving:\n${out}`)));
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
