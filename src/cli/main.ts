#!/usr/bin/env node
/**
 * kubectl-stepwise: the kubectl plugin for Stepwise Rollouts (`kubectl stepwise ...`).
 * Data goes to stdout, diagnostics to stderr; every error is one line and exit code 1.
 */
import { connect } from './client.ts';
import type { CliDeps } from './context.ts';
import { run } from './program.ts';

const deps: CliDeps = {
  out: process.stdout,
  err: process.stderr,
  env: process.env,
  connect: (globals) => connect(globals),
  now: () => Date.now(),
  onInterrupt(handler) {
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
};

const code = await run(process.argv.slice(2), deps);
// Exit once both streams have flushed (open keep-alive sockets must not hold the process).
let pending = 2;
const done = (): void => {
  if (--pending === 0) process.exit(code);
};
process.stdout.write('', done);
process.stderr.write('', done);
