/** Runs kubectl (from the harness's PATH), or another command line tool, as a child process, for
 *  tests of what people type. */
import { spawn } from 'node:child_process';

export interface CommandRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}
export type KubectlRun = CommandRun;

export interface CommandOptions {
  /** Written to stdin as JSON (for `-f -`). */
  readonly input?: unknown;
  /** Overrides of the environment (KUBECONFIG of another user, PATH with the plugin first). */
  readonly env?: NodeJS.ProcessEnv;
}
export type KubectlOptions = CommandOptions;

export function kubectl(args: readonly string[], opts: KubectlOptions = {}): Promise<KubectlRun> {
  return runCommand('kubectl', args, opts);
}

export function runCommand(
  command: string,
  args: readonly string[],
  opts: CommandOptions = {},
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
    delete env.FORCE_COLOR;
    const child = spawn(command, [...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input === undefined ? '' : JSON.stringify(opts.input));
  });
}
