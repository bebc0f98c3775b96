/**
 * A private containerd (Debian's, unpacked into the cache by image/tools.sh) for one test: its
 * own root, state and socket under a temp dir, the CRI plugin off, stopped by its pid. Only its
 * image store is used (`ctr images import`), so nothing runs inside it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { run } from './runc.ts';

export class Containerd {
  readonly #ctr: string;
  readonly #socket: string;
  readonly #dir: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;

  private constructor(containerd: string, ctr: string, dir: string) {
    this.#ctr = ctr;
    this.#dir = dir;
    this.#socket = join(dir, 'containerd.sock');
    mkdirSync(dir, { recursive: true });
    const config = join(dir, 'config.toml');
    writeFileSync(
      config,
      [
        'version = 2',
        `root = "${join(dir, 'root')}"`,
        `state = "${join(dir, 'state')}"`,
        'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
        '[grpc]',
        `  address = "${this.#socket}"`,
        '',
      ].join('\n'),
    );
    const log = openSync(join(dir, 'containerd.log'), 'w');
    this.#child = spawn(containerd, ['--config', config], { stdio: ['ignore', log, log] });
    closeSync(log);
    this.#exited = new Promise((resolve) => this.#child.once('exit', () => resolve()));
    // Never outlive the test run.
    process.once('exit', () => this.#child.kill('SIGKILL'));
  }

  /** Starts one and waits until `ctr version` answers (10 s at most). */
  static async start(containerd: string, ctr: string, dir: string): Promise<Containerd> {
    const daemon = new Containerd(containerd, ctr, dir);
    for (let waited = 0; ; waited += 100) {
      try {
        daemon.ctr('version');
        return daemon;
      } catch (err) {
        if (waited >= 10_000 || daemon.#child.exitCode !== null) {
          const log = readFileSync(join(dir, 'containerd.log'), 'utf8').slice(-3000);
          await daemon.stop();
          throw new Error(`containerd did not start:\n${log}`, { cause: err });
        }
        await sleep(100);
      }
    }
  }

  ctr(...args: string[]): string {
    return run(this.#ctr, ['--address', this.#socket, ...args]);
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null) this.#child.kill('SIGTERM');
    await this.#exited;
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
