// Runs the kubectl plugin the way people do: `kubectl stepwise ...` with the plugin's directory
// first on PATH. STEPWISE_PLUGIN_DIR picks another build of it (the single-file binary from
// `make plugin-binary` is in .stepwise/bin/sea); the default is the shim `make plugin` writes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { pollUntil } from '../../cluster/poll.ts';
import { REPO_ROOT } from '../../cluster/state.ts';

export const PLUGIN_DIR = process.env.STEPWISE_PLUGIN_DIR ?? join(REPO_ROOT, '.stepwise', 'bin');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Written to its standard input. */
  readonly stdin?: string;
  /** Sees all of stdout so far, as it comes (for commands that wait). */
  readonly onStdout?: (all: string) => void;
}

/** `kubectl ARGS` with the plugin first on PATH. */
export function kubectl(args: readonly string[], opts: RunOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${PLUGIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
    };
    delete env.FORCE_COLOR;
    const child = spawn('kubectl', [...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      opts.onStdout?.(stdout);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

export const plugin = (args: readonly string[], opts: RunOptions = {}): Promise<Run> =>
  kubectl(['stepwise', ...args], opts);

/** The CRDs from deploy/crds, as people install them (kubectl server-side apply), Established. */
export async function installCrdsWithKubectl(): Promise<void> {
  const crds = join(REPO_ROOT, 'deploy', 'crds');
  const apply = await kubectl([
    'apply',
    '--server-side',
    '--field-manager=stepwise-tests',
    '--force-conflicts',
    '-f',
    crds,
  ]);
  assert.equal(apply.code, 0, apply.stderr);
  // kubectl wait fails at once, rather than waiting, on a CRD that has no status yet (one
  // another file has just re-created): "accessor error: <nil> is of the type <nil>". Ask again
  // then; any other failure is the answer.
  const wait = await pollUntil(
    'crd/rollouts.stepwise.dev Established',
    async () => {
      const run = await kubectl([
        'wait',
        '--for=condition=Established',
        '--timeout=60s',
        'crd/rollouts.stepwise.dev',
      ]);
      return run.code !== 0 && /accessor error/.test(run.stderr) ? undefined : run;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  assert.equal(wait.code, 0, wait.stderr);
}

/** One line on stderr, nothing on stdout, exit 1. */
export function assertOneLineError(r: Run, expected: string | RegExp): void {
  assert.equal(r.code, 1, `exit code; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.split('\n').length, 2, `one line: ${JSON.stringify(r.stderr)}`);
  const line = r.stderr.trimEnd();
  if (typeof expected === 'string') assert.equal(line, expected);
  else assert.match(line, expected);
}
