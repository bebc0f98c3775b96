// --qps/--burst (the client rate limit) and the documented exit codes, as a user sees them in
// the flags and in --help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigError,
  ExitCode,
  HelpRequested,
  parseConfig,
} from '../../../src/controller/config.ts';

test('--qps and --burst are read, with client-go-like defaults 50 / 100', () => {
  assert.deepEqual([parseConfig([], {}).qps, parseConfig([], {}).burst], [50, 100]);
  const c = parseConfig(['--qps', '5', '--burst', '7'], {});
  assert.deepEqual([c.qps, c.burst], [5, 7]);
  assert.throws(() => parseConfig(['--qps', '0'], {}), /--qps must be a positive integer/);
});

test('--help documents the exit codes, and a lost Lease has its own', () => {
  let help = '';
  try {
    parseConfig(['--help'], {});
  } catch (err) {
    assert.ok(
      err instanceof HelpRequested && !(err instanceof ConfigError),
      'help is not bad flags',
    );
    help = err.message;
  }
  assert.match(help, /exit codes: 0 stopped by SIGTERM\/SIGINT, 1 failed, 2 bad flags/);
  assert.match(help, /3 leader Lease lost/);
  assert.equal(ExitCode.leaseLost, 3);
  assert.equal(new Set(Object.values(ExitCode)).size, Object.values(ExitCode).length);
});
