#!/usr/bin/env node
/**
 * kubectl-stepwise: the kubectl plugin for Stepwise Rollouts (`kubectl stepwise ...`).
 * Data goes to stdout, diagnostics to stderr; every error is one line and exit code 1.
 */
import { connect } from './client.ts';
import type { CliDeps } from './context.ts';
import { errorLine } from './errors.ts';
import { run } from './program.ts';

// A reader that went away (`... | head`) ends us quietly; anything unexpected is one line.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
});
const crash = (err: unknown): void => {
  process.stderr.write(`${errorLine(err)}\n`);
  if (process.env['STEPWISE_DEBUG'] && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const deps: CliDeps = {
  out: process.stdout,
  err: process.stderr,
  env: process.env,
  connect: (globals) => connect(globals),
  now: () => Date.now(),
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  onInterrupt(handler) {
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
};

// No top-level await: the single-file binary (make plugin-binary) runs this as CommonJS.
void run(process.argv.slice(2), deps).then((code) => {
  // Exit once both streams have flushed (open keep-alive sockets must not hold the process).
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}, crash);
