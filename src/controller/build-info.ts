/**
 * stepwise_build_info{version,revision} = 1: which build each replica runs, for dashboards and
 * for spotting a half-finished upgrade (two revisions at once). A family of its own beside
 * metrics.ts's, registered once at start-up.
 */
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { BuildInfo } from '../api/index.ts';

export function registerBuildInfo(registry: Registry, info: BuildInfo): void {
  new Gauge({
    name: 'stepwise_build_info',
    help: 'The running build: 1, labelled with its version and commit.',
    labelNames: ['version', 'revision'],
    registers: [registry],
  }).set({ version: info.version, revision: info.revision }, 1);
}
