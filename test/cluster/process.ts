// One control-plane component as a child process: output to a log file, a way to tell whether
// it died, and a stop that cannot hang (SIGTERM, then SIGKILL after a grace period).
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { sleep } from './poll.ts';

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface StartSpec {
  readonly name: string;
  readonly bin: string;
  readonly args: readonly string[];
  readonly logFile: string;
  readonly env?: NodeJS.ProcessEnv;
}

export class ComponentProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  readonly exited: Promise<ExitInfo>;
  #exit: ExitInfo | undefined;
  #stopping = false;

  constructor(spec: StartSpec) {
    this.name = spec.name;
    this.logFile = spec.logFile;
    const log = openSync(spec.logFile, 'a');
    try {
      // Own process group: a Ctrl-C in the terminal reaches the owner, which then stops the
      // components in order, instead of killing etcd under a running apiserver.
      const child = spawn(spec.bin, spec.args, {
        stdio: ['ignore', log, log],
        detached: true,
        env: spec.env ?? process.env,
      });
      if (child.pid === undefined) throw new Error(`could not start ${spec.bin}`);
      this.pid = child.pid;
      this.exited = new Promise((resolve) => {
        child.on('exit', (code, signal) => {
          this.#exit = { code, signal };
          resolve(this.#exit);
        });
      });
      child.on('error', () => undefined); // reported through `exited`
    } finally {
      closeSync(log);
    }
  }

  get exitInfo(): ExitInfo | undefined {
    return this.#exit;
  }

  /** An error describing an unexpected exit, or undefined while it runs (or was stopped). */
  failure(): Error | undefined {
    if (!this.#exit || this.#stopping) return undefined;
    const how = this.#exit.signal ? `signal ${this.#exit.signal}` : `code ${this.#exit.code}`;
    return new Error(`${this.name} exited with ${how} (log: ${this.logFile})`);
  }

  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    if (this.#exit) return;
    this.#signal('SIGTERM');
    const exitedInTime = await Promise.race([
      this.exited.then(() => true),
      sleep(graceMs).then(() => false),
    ]);
    if (!exitedInTime) this.#signal('SIGKILL');
    await this.exited;
  }

  /** Synchronous last resort for the owner's `exit` event, where nothing can be awaited. */
  killNow(): void {
    this.#stopping = true;
    if (!this.#exit) this.#signal('SIGKILL');
  }

  #signal(signal: NodeJS.Signals): void {
    try {
      process.kill(this.pid, signal);
    } catch {
      // already gone
    }
  }
}

export function tailFile(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch (err) {
    return `(cannot read ${file}: ${String(err)})`;
  }
}
