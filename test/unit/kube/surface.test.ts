/**
 * src/kube's boundaries: it imports only src/api (and libraries), every file stays small, the
 * public surface in index.ts loads, and the controller reaches src/kube through it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as kube from '../../../src/kube/index.ts';

const dir = join(import.meta.dirname, '../../../src/kube');
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));

test('src/kube imports only src/kube, src/api and packages', () => {
  for (const f of files) {
    const src = readFileSync(join(dir, f), 'utf8');
    for (const m of src.matchAll(/^\s*(?:import|export)[^'"]*?from\s+'([^']+)'/gm)) {
      const spec = m[1] ?? '';
      if (!spec.startsWith('.')) continue;
      assert.ok(
        spec.startsWith('./') || spec.startsWith('../api/'),
        `${f} imports ${spec}: src/kube may depend on src/api only`,
      );
    }
  }
});

test('src/kube files stay small (one concern each)', () => {
  for (const f of files) {
    const lines = readFileSync(join(dir, f), 'utf8').split('\n').length;
    assert.ok(lines <= 330, `${f} has ${lines} lines`);
  }
});

test('src/controller imports src/kube only through its public surface', () => {
  const controller = join(import.meta.dirname, '../../../src/controller');
  for (const f of readdirSync(controller).filter((n) => n.endsWith('.ts'))) {
    const src = readFileSync(join(controller, f), 'utf8');
    for (const m of src.matchAll(/^\s*(?:import|export)[^'"]*?from\s+'\.\.\/kube\/([^']+)'/gm)) {
      assert.equal(m[1], 'index.ts', `src/controller/${f} imports src/kube/${m[1] ?? ''}`);
    }
  }
});

test('the public surface exports the runtime pieces', () => {
  for (const name of [
    'RateLimitingQueue',
    'ExponentialBackoffRateLimiter',
    'Informer',
    'LeaderElector',
    'KubeEventRecorder',
    'RestKubeApi',
    'kubeApiOver',
    'loadConnection',
    'httpsTransport',
    'kubeListWatch',
    'kubeLeaseClient',
    'ownerKey',
    'ApiStatusError',
    'isConflict',
    'isNotFound',
    'isGone',
    'systemClock',
    'workqueueMetrics',
    'requestMetrics',
  ]) {
    assert.ok(name in kube, `${name} exported`);
  }
});
