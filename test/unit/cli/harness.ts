// Runs the whole plugin in-process (commander, client-node, kubeconfig loading) with captured
// stdout and stderr, against whatever server the kubeconfig names.
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { connect } from '../../../src/cli/client.ts';
import type { CliDeps } from '../../../src/cli/context.ts';
import { run } from '../../../src/cli/program.ts';

export class Sink {
  text = '';
  isTTY = false;
  write(s: string) {
    this.text += s;
    return true;
  }
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export interface CliOptions {
  /** the environment the plugin sees (KUBECONFIG, HOME, ...) */
  env: Record<string, string>;
  /** text on stdin, for `lint -` */
  stdin?: string;
  now?: () => number;
}

export async function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
  const out = new Sink();
  const err = new Sink();
  const deps: CliDeps = {
    out,
    err,
    env: opts.env,
    connect: (g) => connect(g, opts.env),
    now: opts.now ?? (() => Date.now()),
    onInterrupt: () => () => undefined,
    readStdin: () => Promise.resolve(opts.stdin ?? ''),
  };
  const code = await run(args, deps);
  return { code, out: out.text, err: err.text };
}

/** A loopback port nothing listens on: it was bound, then closed. */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A kubeconfig naming `server`, with a token user and an optional context namespace. */
export function writeKubeconfig(file: string, server: string, namespace?: string): void {
  const ns = namespace === undefined ? '' : `\n    namespace: ${JSON.stringify(namespace)}`;
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${server}
    insecure-skip-tls-verify: true
users:
- name: u
  user:
    token: t
contexts:
- name: c
  context:
    cluster: c
    user: u${ns}
current-context: c
`,
  );
}

/** One line on stderr, nothing on stdout, exit 1. */
export function oneLineError(r: CliResult): string | undefined {
  if (r.code !== 1 || r.out !== '' || !r.err.endsWith('\n')) return undefined;
  const line = r.err.slice(0, -1);
  return line.includes('\n') ? undefined : line;
}

export async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
