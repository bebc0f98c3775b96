// The idle-CPU and memory benches read a controller's CPU time and memory from /proc.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  contextSwitches,
  cpuSeconds,
  parseContextSwitches,
  parseProcStat,
  parseProcStatus,
} from '../../bench/proc-stat.ts';

/** A /proc/<pid>/stat line with the given command name, utime 1234 and stime 56 ticks. */
const statLine = (comm: string): string =>
  `4242 (${comm}) S 1 4242 4242 0 -1 4194560 5321 0 0 0 1234 56 0 0 20 0 11 0 1391836 ` +
  `1143226368 23456 18446744073709551615 1 1 0 0 0 0 0 16781312 17922 0 0 0 17 1 0 0 0 0 0`;

describe('a process’s CPU time from /proc/<pid>/stat', () => {
  it('reads user and system time in seconds (ticks of 10 ms)', () => {
    assert.deepEqual(parseProcStat(statLine('rollouts-contr')), {
      userSeconds: 12.34,
      systemSeconds: 0.56,
    });
  });

  it('is not misled by spaces or parentheses in the command name', () => {
    assert.deepEqual(parseProcStat(statLine('node (main) 2')), {
      userSeconds: 12.34,
      systemSeconds: 0.56,
    });
  });

  it('refuses text that is not a stat line, rather than reporting NaN seconds', () => {
    assert.throws(() => parseProcStat('Name:\tnode\nState:\tS'), /not a \/proc\/<pid>\/stat line/);
    assert.throws(() => parseProcStat('1 (x) S 1'), /not a \/proc\/<pid>\/stat line/);
  });

  it('reads this very process, whose CPU time only grows', async () => {
    const first = await cpuSeconds(process.pid);
    let x = 0;
    for (let i = 0; i < 5e7; i++) x += i;
    assert.ok(x > 0);
    assert.ok((await cpuSeconds(process.pid)) >= first);
    await assert.rejects(cpuSeconds(undefined), /no process id/);
  });
});

describe('a process’s memory from /proc/<pid>/status', () => {
  it('reads VmRSS and VmHWM in kB, NaN for one that is missing', () => {
    const status = 'Name:\tnode\nVmHWM:\t  123456 kB\nVmRSS:\t   98765 kB\nThreads:\t11\n';
    assert.deepEqual(parseProcStatus(status), { rssKb: 98765, hwmKb: 123456 });
    const gone = parseProcStatus('');
    assert.ok(Number.isNaN(gone.rssKb) && Number.isNaN(gone.hwmKb));
  });
});

describe('how often a process woke, from its threads’ context switches', () => {
  it('adds voluntary and involuntary switches of a thread', () => {
    const status = 'Name:\tnode\nvoluntary_ctxt_switches:\t1200\nnonvoluntary_ctxt_switches:\t34\n';
    assert.equal(parseContextSwitches(status), 1234);
    assert.equal(parseContextSwitches(''), 0);
  });

  it('counts every thread of this process, and more after it has slept', async () => {
    const first = await contextSwitches(process.pid);
    assert.ok(first > 0);
    await new Promise((r) => setTimeout(r, 20));
    assert.ok((await contextSwitches(process.pid)) > first);
  });
});
