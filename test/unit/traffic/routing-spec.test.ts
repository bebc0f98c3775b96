// The routers' own rules on a Rollout's spec (moved from src/api/traffic-validate.ts into the
// router modules): what Istio and Gateway API cannot express, and the header and mirror route
// steps only some routers carry. The planner may import only src/api, so these problems reach it
// in the shell's reading of the routers (observeTraffic); each row goes that whole way, from
// the spec to the InvalidSpec condition.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture, serviceFixture } from '../../fixtures/rollout/sim.ts';
import { ROUTER_KEYS } from '../../../src/api/index.ts';
import type { CanaryStrategy } from '../../../src/api/index.ts';
import { observeTraffic } from '../../../src/controller/traffic-shell.ts';
import type { TrafficObjectCache } from '../../../src/controller/traffic-shell.ts';
import { ROUTERS, routingProblems } from '../../../src/traffic/index.ts';

/** A cluster that serves every router's kinds and holds none of their objects. */
const EMPTY: TrafficObjectCache = { watches: () => true, object: () => undefined };

function invalidSpec(canary: Partial<CanaryStrategy>): string[] {
  const sim = new Sim(
    rolloutFixture({ strategy: { canary: { steps: [{ setWeight: 10 }], ...canary } } }),
  );
  sim.services.set('c', serviceFixture('c'));
  sim.services.set('s', serviceFixture('s'));
  sim.traffic = observeTraffic(sim.rollout, EMPTY, [])?.observation;
  sim.pass();
  const c = sim.rollout.status?.conditions?.find((x) => x.type === 'InvalidSpec');
  return c === undefined ? [] : c.message.split('; ');
}

const services = { canaryService: 'c', stableService: 's' };

describe('traffic routing spec: the routers’ own rules', () => {
  for (const [name, canary, expected] of [
    [
      'a header route not listed in managedRoutes',
      {
        ...services,
        trafficRouting: { gatewayAPI: { httpRoute: 'web' } },
        steps: [{ setHeaderRoute: { name: 'h', match: [] } }],
      },
      'spec.strategy.canary.steps[0].setHeaderRoute.name: "h" must be listed in trafficRouting.managedRoutes',
    ],
    [
      'a mirror route on NGINX',
      {
        ...services,
        trafficRouting: { nginx: { stableIngress: 'web' }, managedRoutes: [{ name: 'm' }] },
        steps: [{ setMirrorRoute: { name: 'm' } }],
      },
      'spec.strategy.canary.steps[0].setMirrorRoute: needs the gatewayAPI or istio router',
    ],
    [
      'a prefix header match on Gateway API',
      {
        ...services,
        trafficRouting: { gatewayAPI: { httpRoute: 'web' }, managedRoutes: [{ name: 'h' }] },
        steps: [
          {
            setHeaderRoute: {
              name: 'h',
              match: [{ headerName: 'x', headerValue: { prefix: 'a' } }],
            },
          },
        ],
      },
      'spec.strategy.canary.steps[0].setHeaderRoute.match[0].headerValue.prefix: Gateway API matches headers exactly or by regex (use regex: "^a.*")',
    ],
    [
      'a header route when no HTTPRoute takes header routes',
      {
        ...services,
        trafficRouting: {
          gatewayAPI: { httpRoutes: [{ name: 'web' }] },
          managedRoutes: [{ name: 'h' }],
        },
        steps: [
          {
            setHeaderRoute: {
              name: 'h',
              match: [{ headerName: 'x', headerValue: { exact: 'a' } }],
            },
          },
        ],
      },
      'spec.strategy.canary.steps[0].setHeaderRoute: no httpRoutes entry has useHeaderRoutes: true',
    ],
    [
      'a total weight Istio cannot express',
      {
        ...services,
        trafficRouting: { istio: { virtualService: { name: 'web' } }, maxTrafficWeight: 1000 },
      },
      'spec.strategy.canary.trafficRouting.maxTrafficWeight: must be 100 with istio (Istio route weights add up to 100), got 1000',
    ],
    [
      'a total weight over Gateway API backendRef weights',
      {
        ...services,
        trafficRouting: { gatewayAPI: { httpRoute: 'web' }, maxTrafficWeight: 2_000_000 },
      },
      'spec.strategy.canary.trafficRouting.maxTrafficWeight: must not exceed 1000000 with gatewayAPI (the largest backendRef weight), got 2000000',
    ],
    [
      'NGINX without a stable Ingress',
      { ...services, trafficRouting: { nginx: {} } },
      'spec.strategy.canary.trafficRouting.nginx: must set stableIngress or stableIngresses',
    ],
    [
      'Istio without a VirtualService',
      { ...services, trafficRouting: { istio: {} } },
      'spec.strategy.canary.trafficRouting.istio: must set virtualService or virtualServices',
    ],
    [
      "Gateway API's limits hold for Argo's plugin key too",
      {
        ...services,
        trafficRouting: {
          plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'web' } },
          maxTrafficWeight: 2_000_000,
        },
      },
      'spec.strategy.canary.trafficRouting.maxTrafficWeight: must not exceed 1000000 with gatewayAPI (the largest backendRef weight), got 2000000',
    ],
  ] as const) {
    it(`${name} is InvalidSpec`, () => {
      const found = invalidSpec(canary as Partial<CanaryStrategy>);
      assert.ok(found.includes(expected), found.join('\n'));
    });
  }

  it('a spec that fails its schema gets the schema problems, not the routers’ rules', () => {
    const rollout = rolloutFixture({
      strategy: {
        canary: {
          ...services,
          trafficRouting: { istio: {}, maxTrafficWeight: 1000 },
          steps: [{ setWeight: 'ten' as unknown as number }],
        },
      },
    });
    assert.deepEqual(observeTraffic(rollout, EMPTY, [])?.observation.problems ?? [], []);
    assert.ok(routingProblems(rollout.spec.strategy.canary).length > 0);
  });

  it('a valid routing: no problems of the routers’ own', () => {
    assert.deepEqual(
      routingProblems({
        ...services,
        trafficRouting: {
          gatewayAPI: { httpRoute: 'web' },
          istio: { virtualService: { name: 'web' } },
          managedRoutes: [{ name: 'h' }],
        },
        steps: [{ setHeaderRoute: { name: 'h', match: [] } }],
      }),
      [],
    );
  });
});

describe('router registry', () => {
  it('registers one module per router of the schema, in its order', () => {
    assert.deepEqual(
      ROUTERS.map((r) => r.key),
      ROUTER_KEYS,
    );
  });
});
