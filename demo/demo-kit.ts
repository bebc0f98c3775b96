/**
 * The machinery behind demo.ts, kept out of the story: narration (section headers with the time,
 * commands echoed as you would type them), child processes with time limits, and a shutdown path
 * that stops everything the demo started, on success, on failure and on Ctrl-C.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

const started = Date.now();
const useColor = !!process.stdout.isTTY && !process.env['NO_COLOR'];
const paint =
  (code: string) =>
  (s: string): string =>
    useColor ? `\x1b[${code}m${s}\x1b[0m` : s;
export const bold = paint('1');
export const dim = paint('2');
export const yellow = paint('33');

/** Seconds since the demo started, e.g. `+12.3s`. */
export const elapsed = (): string => `+${((Date.now() - started) / 1000).toFixed(1)}s`;
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const wallClock = (): string => new Date().toTimeString().slice(0, 8);

export function section(title: string): void {
  const stamp = ` ${wallClock()}  ${elapsed()} ──`;
  console.log(`\n${bold(`── ${title} `.padEnd(96 - stamp.length, '─') + stamp)}`);
}

/** Narration: indented, one argument per line. */
export function say(...lines: string[]): void {
  for (const line of lines) console.log(line === '' ? '' : `   ${line}`);
}

/** An argument as a POSIX shell would need it, so echoed commands can be pasted. */
export const shellQuote = (arg: string): string =>
  /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;

// ---------------------------------------------------------------------------------------------
// Child processes

const children = new Set<ChildProcess>();

/** Adds a child to those stopped when the demo ends. */
export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.once('error', () => children.delete(child));
  return child;
}

export interface ExecOptions {
  /** Exit codes that are not a failure (default [0]). */
  readonly ok?: readonly number[];
  /** Kill the command and fail after this long (default 90 s). */
  readonly timeoutMs?: number;
  readonly env?: NodeJS.ProcessEnv;
}

interface ExecResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function exec(
  cmd: string,
  args: readonly string[],
  quiet: boolean,
  opts: ExecOptions,
): Promise<ExecResult> {
  const line = [cmd, ...args].map(shellQuote).join(' ');
  const timeoutMs = opts.timeoutMs ?? 90_000;
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(cmd, args, {
        stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
        env: opts.env ?? process.env,
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${cmd}: ${err.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const detail = quiet && stderr.trim() ? `: ${stderr.trim()}` : '';
      if (timedOut) reject(new Error(`\`${line}\` did not finish within ${seconds(timeoutMs)}`));
      else if (code === null) reject(new Error(`\`${line}\` was stopped by ${signal}`));
      else if (!(opts.ok ?? [0]).includes(code))
        reject(new Error(`\`${line}\` exited with ${code}${detail}`));
      else resolve({ code, stdout, stderr });
    });
  });
}

/** Echoes `$ cmd args` and runs it with its output on the terminal; resolves with the exit code. */
export async function run(
  cmd: string,
  args: readonly string[],
  opts: ExecOptions = {},
): Promise<number> {
  console.log(
    `\n${dim(elapsed().padStart(7))} ${bold(`$ ${[cmd, ...args].map(shellQuote).join(' ')}`)}`,
  );
  return (await exec(cmd, args, false, opts)).code;
}

/** Runs a command without showing it; resolves with its standard output, trimmed. */
export async function capture(
  cmd: string,
  args: readonly string[],
  opts: ExecOptions = {},
): Promise<string> {
  return (await exec(cmd, args, true, { timeoutMs: 30_000, ...opts })).stdout.trim();
}

export interface LineStream {
  /** Resolves when the process has exited (after stop(), or on its own). */
  readonly exited: Promise<number | null>;
  readonly stderr: () => string;
  stop(): void;
}

/** Starts a long-running command and hands each line of its standard output to `onLine`. */
export function streamLines(
  cmd: string,
  args: readonly string[],
  onLine: (line: string) => void,
): LineStream {
  const child = track(spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  if (child.stdout) createInterface({ input: child.stdout }).on('line', onLine);
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  return { exited, stderr: () => stderr.trim(), stop: () => void child.kill('SIGTERM') };
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves once it has exited. */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// Start and end

const cleanups: (() => Promise<void>)[] = [];

/** Registers something to stop when the demo ends, however it ends (last registered runs first). */
export function onCleanup(fn: () => Promise<void>): void {
  cleanups.push(fn);
}

async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    try {
      await cleanups.pop()?.();
    } catch {
      // keep going: the rest must still be stopped
    }
  }
  await Promise.all([...children].map((child) => stopProcess(child, 3_000)));
}

let failFast: (err: Error) => void = () => undefined;
const fatal = new Promise<never>((_, reject) => {
  failFast = reject;
});
fatal.catch(() => undefined); // handled by runDemo's race

/** Ends the demo with this failure now, wherever `main` is (for a process that died, say). */
export function failNow(err: Error): void {
  failFast(err);
}

/** A failure the demo itself detected; printed without a stack. */
export class DemoError extends Error {
  override name = 'DemoError';
}

export function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new DemoError(message);
}

/**
 * Runs the demo: exit 0 when `main` resolves, 1 (after `onFailure`) when it throws. On SIGINT,
 * SIGTERM or SIGHUP everything is stopped and the exit code is 128 + the signal; a second Ctrl-C
 * kills at once. Whatever happens, no child outlives the demo.
 */
export function runDemo(main: () => Promise<void>, onFailure: () => void): void {
  let interrupted = false;
  const signals = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
  for (const [signal, code] of Object.entries(signals)) {
    process.once(signal, () => {
      if (interrupted) return;
      interrupted = true;
      console.error(`\n${signal}: stopping what the demo started...`);
      void cleanUp().finally(() => {
        console.error('stopped');
        process.exit(code);
      });
    });
  }
  process.once('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
  Promise.race([main(), fatal]).then(
    async () => {
      await cleanUp();
      process.exit(0);
    },
    async (err: unknown) => {
      // A Ctrl-C reaches our children too: give our own handler the chance to run first.
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (interrupted) return; // the signal handler is already on its way out
      const message = err instanceof Error ? err.message : String(err);
      console.error(`\n${bold('demo failed:')} ${message}`);
      if (err instanceof Error && !(err instanceof DemoError) && process.env['STEPWISE_DEBUG']) {
        console.error(err.stack);
      }
      onFailure();
      await cleanUp();
      process.exit(1);
    },
  );
}

/** What Git would change: only the image (a JSON patch, so the rest of the template stays). */
export const setRolloutImage = (ns: string, name: string, image: string): Promise<number> =>
  run('kubectl', [
    '-n',
    ns,
    'patch',
    'swro',
    name,
    '--type=json',
    '-p',
    JSON.stringify([
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: image },
    ]),
  ]);
