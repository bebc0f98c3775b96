// Strings from the cluster reach the terminal as visible escapes, never as control sequences
// (issue 20, L3): the review's payload, an OSC 52 clipboard write, a cursor move up and a
// carriage return that would paint "Healthy" over the real status, in every place the plugin
// prints what others wrote: status and metric messages, measured values, approval comments
// and names, pod states. The whole plugin is run too, with and without a terminal.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Rollout } from '../../../src/api/rollout.ts';
import { connect } from '../../../src/cli/client.ts';
import type { CliDeps } from '../../../src/cli/context.ts';
import { run } from '../../../src/cli/program.ts';
import { CliError, errorLine } from '../../../src/cli/errors.ts';
import { ansiColor, stripAnsi } from '../../../src/cli/render/color.ts';
import { displayPhase } from '../../../src/cli/render/info.ts';
import { renderRollout } from '../../../src/cli/render/tree.ts';
import { sanitised, sanitiseText } from '../../../src/cli/sanitise.ts';
import { FakeApiServer } from './fake-apiserver.ts';
import { analysisRun, canaryRS, NOW, pausedStatus, pod, rollout, stableRS } from './fixtures.ts';
import { infoOf, lineOf, listOf, renderRun } from './views.ts';

const EVIL = '\x1b]52;c;ZXZpbA==\x07\x1b[2AHealthy\r';
const SHOWN = '\\x1b]52;c;ZXZpbA==\\x07\\x1b[2AHealthy\\r';
/** What a terminal acts on, once our own colours (SGR `ESC[nm`) are set aside. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const OUR_COLOURS = /\x1b\[\d+m/g;

function assertInert(text: string): void {
  const stray = CONTROL.exec(text.replace(OUR_COLOURS, ''));
  assert.equal(stray, null, `control character U+${stray?.[0].codePointAt(0)?.toString(16)}`);
}

describe('sanitiseText', () => {
  const rows: [string, string][] = [
    [EVIL, SHOWN],
    ['\x9b2A', '\\x9b2A'], // C1 CSI
    ['\x9d0;title\x9c', '\\x9d0;title\\x9c'], // C1 OSC and ST
    ['a\x7fb\x00c\x08', 'a\\x7fb\\x00c\\x08'],
    ['admin\u202egnp.exe', 'admin\\u{202e}gnp.exe'], // right-to-left override
    ['\u2066isolate\u2069', '\\u{2066}isolate\\u{2069}'],
    ['two\nlines\tand a tab', 'two\nlines\tand a tab'],
    ['plain ünïcödé 😀', 'plain ünïcödé 😀'],
  ];
  for (const [raw, shown] of rows) {
    test(JSON.stringify(raw), () => assert.equal(sanitiseText(raw), shown));
  }
});

describe('sanitised', () => {
  test('every string, keys included, at any depth; Dates stay Dates', () => {
    const when = new Date(NOW);
    const out = sanitised({ a: [{ [`k${EVIL}`]: EVIL }], n: 1, b: true, z: null, when });
    assert.deepEqual(out, { a: [{ [`k${SHOWN}`]: SHOWN }], n: 1, b: true, z: null, when });
    assert.ok(out.when instanceof Date);
  });
  test('class instances (client-node models) become plain objects with clean fields', () => {
    class Model {
      message = EVIL;
    }
    assert.deepEqual(sanitised({ m: new Model() }), { m: { message: SHOWN } });
  });
});

describe('stripAnsi', () => {
  const rows: [string, string][] = [
    ['\x1b[31mred\x1b[39m', 'red'],
    [EVIL, 'Healthy'],
    ['\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\', 'link'], // OSC 8 hyperlink, ST-terminated
    ['\x9b2Aup', 'up'],
    ['\x9d0;title\x9cok', 'ok'],
    ['a\x1bcb', 'ab'],
    ['keep\ttabs\nand lines', 'keep\ttabs\nand lines'],
  ];
  for (const [raw, stripped] of rows) {
    test(JSON.stringify(raw), () => assert.equal(stripAnsi(raw), stripped));
  }
});

describe('every renderer shows what others wrote as escapes', () => {
  const degraded = rollout({ ...pausedStatus, phase: 'Degraded', message: EVIL });

  test('get rollout: the status message, plain and coloured', () => {
    const info = infoOf(degraded, [stableRS, canaryRS], [], NOW);
    for (const paint of [undefined, ansiColor]) {
      const out = renderRollout(info, { now: NOW, ...(paint ? { paint } : {}) });
      assert.match(out, new RegExp(`Message:\\s+${escape(SHOWN)}\n`));
      assertInert(out);
    }
  });

  test('get rollout: approval comments and names', () => {
    const ro = rollout({
      ...pausedStatus,
      approvals: [
        {
          step: 1,
          revision: 'c4n4ry',
          decision: 'Approve',
          by: `mallory\u202e`,
          via: 'link',
          at: '2026-03-01T11:00:00Z',
          comment: EVIL,
        },
      ],
    });
    const out = renderRollout(infoOf(ro, [stableRS, canaryRS], [], NOW), { now: NOW });
    assert.ok(out.includes(`approved by mallory\\u{202e} via link`), out);
    assert.ok(out.includes(`— ${SHOWN}`), out);
    assertInert(out);
  });

  test('get rollout: pod states written by the kubelet or a webhook', () => {
    const crashing = pod(canaryRS, 'zzzzz', 'crash', 3);
    const waiting = crashing.status?.containerStatuses?.[0]?.state;
    if (waiting) waiting.waiting = { reason: EVIL };
    const out = renderRollout(infoOf(degraded, [stableRS, canaryRS], [crashing], NOW), {
      now: NOW,
    });
    assert.ok(out.includes(SHOWN), out);
    assertInert(out);
  });

  test('get analysisrun: run and metric messages, measured values and their messages', () => {
    const r = analysisRun('r', 'Failed', [
      {
        name: 'm',
        phase: 'Failed',
        message: EVIL,
        measurements: [
          { phase: 'Failed', value: EVIL, message: `${EVIL}!`, startedAt: '2026-03-01T11:00:00Z' },
        ],
      },
    ]);
    r.status = { ...r.status, message: EVIL };
    for (const paint of [undefined, ansiColor]) {
      const out = renderRun(r, NOW, paint);
      assert.match(out, new RegExp(`^Message:\\s+${escape(SHOWN)}$`, 'm'));
      assert.match(out, new RegExp(`^  Message:\\s+${escape(SHOWN)}$`, 'm'));
      assert.ok(out.includes(`${SHOWN}!`), out);
      assertInert(out);
    }
  });

  test('error lines, which quote status messages, refusals and admission messages', () => {
    assert.equal(
      errorLine(new CliError(`not waiting (Paused: ${EVIL})`)),
      `Error: not waiting (Paused: ${SHOWN})`,
    );
  });

  test('list and status', () => {
    const odd = rollout({ ...pausedStatus, phase: EVIL as never });
    assertInert(listOf([odd]));
    assert.ok(listOf([odd]).includes(SHOWN));
    assert.equal(lineOf(displayPhase(sanitised(degraded))), `Degraded - ${SHOWN}`);
  });
});

describe('the whole plugin, with and without a terminal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-sanitise-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const api = new FakeApiServer();
  before(async () => {
    await api.start();
    api.writeKubeconfig(kubeconfig, 'shop');
    const ro: Rollout = rollout({ ...pausedStatus, phase: 'Degraded', message: EVIL });
    api.put('rollouts', structuredClone(ro) as never);
    for (const rs of [stableRS, canaryRS]) api.put('replicasets', structuredClone(rs) as never);
    const r = analysisRun('r', 'Failed', [
      { name: 'm', phase: 'Failed', measurements: [{ phase: 'Failed', value: EVIL }] },
    ]);
    api.put('analysisruns', JSON.parse(JSON.stringify(r)) as never);
  });
  after(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function cli(args: string[], isTTY: boolean): Promise<{ code: number; text: string }> {
    let text = '';
    const sink = {
      isTTY,
      write: (s: string) => ((text += s), true),
    };
    const env = { KUBECONFIG: kubeconfig, HOME: dir };
    const deps: CliDeps = {
      out: sink,
      err: sink,
      env,
      connect: (g) => connect(g, env),
      now: () => NOW,
      onInterrupt: () => () => undefined,
      readStdin: () => Promise.resolve(''),
    };
    const code = await run(args, deps);
    return { code, text };
  }

  for (const isTTY of [false, true]) {
    test(`get rollout, get analysisrun and status (${isTTY ? 'TTY' : 'no TTY'})`, async () => {
      const get = await cli(['get', 'rollout', 'web'], isTTY);
      assert.equal(get.code, 0, get.text);
      assert.ok(get.text.includes(SHOWN), get.text);
      if (isTTY) assert.match(get.text, OUR_COLOURS, 'a terminal still gets colours');
      assertInert(get.text);

      const runOut = await cli(['get', 'analysisrun', 'r'], isTTY);
      assert.equal(runOut.code, 0, runOut.text);
      assert.ok(runOut.text.includes(SHOWN), runOut.text);
      assertInert(runOut.text);

      const status = await cli(['status', 'web', '--watch=false'], isTTY);
      assert.equal(status.text, `Degraded - ${SHOWN}\n`);
      const watched = await cli(['status', 'web', '--timeout', '5s'], isTTY);
      assert.equal(watched.code, 1);
      assert.ok(watched.text.includes(`degraded state with message: ${SHOWN}`), watched.text);
      assertInert(watched.text);
    });
  }
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
