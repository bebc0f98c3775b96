// The traffic routers' own CRDs (Gateway API, Istio networking, SMI TrafficSplit), read from
// their Go module zips: `go mod download` fetches a zip once into the module cache and later calls
// answer from it, so nothing is vendored into this repository and nothing is compiled.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import type { KubeHttp } from './kube-http.ts';
import { pollUntil } from './poll.ts';
import { kubeHttp } from './testing.ts';

/** The newest Gateway API release that builds with Go 1.26 (v1.7.0 wants Go 1.27). */
export const GATEWAY_API_MODULE = 'sigs.k8s.io/gateway-api@v1.6.3';
/** Istio's API module; its CRD file is generated for the same release. */
export const ISTIO_API_MODULE = 'istio.io/api@v1.30.8';
/** Argo Rollouts' e2e CRDs hold the only apiextensions/v1 TrafficSplit (v1alpha4) with a tag; the
 *  release test/cluster/argo/build.sh builds its controller from, so a clean run fetches one. */
export const ARGO_ROLLOUTS_MODULE = 'github.com/argoproj/argo-rollouts@v1.9.2';

export type GatewayChannel = 'standard' | 'experimental';

export interface RouterCrdFiles {
  /** `config/crd/standard/*.yaml` that are CustomResourceDefinitions, one CRD per file. */
  readonly gatewayStandard: string[];
  /** `config/crd/experimental/*.yaml` likewise (a superset of the standard channel). */
  readonly gatewayExperimental: string[];
  /** `kubernetes/customresourcedefinitions.gen.yaml`: every Istio CRD, one document each. */
  readonly istio: string;
  /** `test/e2e/crds/split.yaml`: trafficsplits.split.smi-spec.io, served as v1alpha4. */
  readonly smi: string;
}

interface Crd {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { name: string; annotations?: Record<string, string> };
  readonly status?: { conditions?: { type: string; status: string }[] };
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CHANNEL_ANNOTATION = 'gateway.networking.k8s.io/channel';
const ESTABLISH_TIMEOUT_MS = 60_000;

let files: Promise<RouterCrdFiles> | undefined;
const installs = new Map<GatewayChannel, Promise<void>>();

/** Absolute paths of the CRD files in the module cache (downloads the zips on first use). */
export function routerCrdFiles(): Promise<RouterCrdFiles> {
  files ??= findFiles();
  files.catch(() => (files = undefined)); // a failed download may be retried
  return files;
}

/**
 * Server-side applies the router CRDs to the cluster in KUBECONFIG and waits until each one is
 * Established: every CRD of the Gateway API channel, every Istio CRD, the SMI TrafficSplit.
 * Idempotent (test files share a cluster). The Gateway API's `*_vap_safeupgrades.yaml` (a
 * ValidatingAdmissionPolicy, not a CRD) is not installed: it would refuse to put the experimental
 * channel over the standard one, and this cluster's tests may ask for either.
 *
 * The experimental channel is a superset of the standard one, so asking for `standard` on a
 * cluster that already has the experimental CRDs keeps them (a downgrade would prune the
 * experimental fields of objects other tests made).
 */
export function installRouterCrds(channel: GatewayChannel = 'experimental'): Promise<void> {
  let install = installs.get(channel);
  if (!install) {
    install = applyAll(channel);
    installs.set(channel, install);
    install.catch(() => installs.delete(channel));
  }
  return install;
}

async function applyAll(requested: GatewayChannel): Promise<void> {
  const http = kubeHttp();
  try {
    const paths = await routerCrdFiles();
    const channel =
      requested === 'standard' && (await hasExperimental(http)) ? 'experimental' : requested;
    const gateway = channel === 'standard' ? paths.gatewayStandard : paths.gatewayExperimental;
    const crds: Crd[] = [];
    for (const file of [...gateway, paths.istio, paths.smi]) crds.push(...(await readCrds(file)));
    const pending: string[] = [];
    for (const crd of crds) {
      const live = await http.json<Crd>(
        'PATCH',
        `${CRDS}/${crd.metadata.name}?fieldManager=stepwise-tests&force=true`,
        crd,
        'application/apply-patch+yaml',
      );
      if (!established(live)) pending.push(crd.metadata.name);
    }
    for (const name of pending) {
      await pollUntil(
        `CRD ${name} established`,
        async () =>
          established(await http.json<Crd>('GET', `${CRDS}/${name}`)) ? true : undefined,
        { timeoutMs: ESTABLISH_TIMEOUT_MS, intervalMs: 100 },
      );
    }
  } finally {
    http.close();
  }
}

async function hasExperimental(http: KubeHttp): Promise<boolean> {
  const res = await http.request('GET', `${CRDS}/httproutes.gateway.networking.k8s.io`);
  if (res.status === 404) return false;
  if (res.status !== 200) throw new Error(`GET httproutes CRD: HTTP ${res.status}: ${res.body}`);
  const crd = JSON.parse(res.body) as Crd;
  return crd.metadata.annotations?.[CHANNEL_ANNOTATION] === 'experimental';
}

function established(crd: Crd): boolean {
  return (
    crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true
  );
}

async function readCrds(file: string): Promise<Crd[]> {
  const docs = loadAll(await readFile(file, 'utf8')) as (Crd | null)[];
  const crds = docs.filter(
    (d): d is Crd =>
      d?.kind === 'CustomResourceDefinition' && d.apiVersion === 'apiextensions.k8s.io/v1',
  );
  if (crds.length === 0) throw new Error(`${file}: no apiextensions.k8s.io/v1 CRD in it`);
  return crds;
}

async function findFiles(): Promise<RouterCrdFiles> {
  const gatewayDir = await moduleDir(GATEWAY_API_MODULE);
  const istioDir = await moduleDir(ISTIO_API_MODULE);
  const argoDir = await moduleDir(ARGO_ROLLOUTS_MODULE);
  return {
    gatewayStandard: await crdFilesIn(join(gatewayDir, 'config', 'crd', 'standard')),
    gatewayExperimental: await crdFilesIn(join(gatewayDir, 'config', 'crd', 'experimental')),
    istio: join(istioDir, 'kubernetes', 'customresourcedefinitions.gen.yaml'),
    smi: join(argoDir, 'test', 'e2e', 'crds', 'split.yaml'),
  };
}

/** The `*.yaml` files in `dir` whose object is a CRD (not kustomization.yaml, not the VAP). */
async function crdFilesIn(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort()) {
    const file = join(dir, name);
    if (/^kind: CustomResourceDefinition$/m.test(await readFile(file, 'utf8'))) out.push(file);
  }
  if (out.length === 0) throw new Error(`${dir}: no CustomResourceDefinition files`);
  return out;
}

/** `go mod download -json`, outside any go.mod (a temporary cwd), for the module's `.Dir` (also
 *  where test/observability/ reads Argo's Grafana dashboard). */
export async function moduleDir(module: string): Promise<string> {
  process.stderr.write(
    `[router-crds] go mod download ${module} (from the module cache after the first run)\n`,
  );
  const cwd = await mkdtemp(join(tmpdir(), 'stepwise-router-crds-'));
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)('go', ['mod', 'download', '-json', module], {
      cwd,
      env: { ...process.env, GOFLAGS: '-mod=mod' },
      maxBuffer: 1 << 20,
    }));
  } catch (err) {
    // On failure go still prints the JSON, with the reason in `.Error`.
    let reason: string | undefined;
    try {
      reason = (JSON.parse((err as { stdout?: string }).stdout ?? '') as { Error?: string }).Error;
    } catch {
      // not JSON: go itself failed to start, or died
    }
    throw new Error(`go mod download ${module} failed: ${reason ?? (err as Error).message}`, {
      cause: err,
    });
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
  const info = JSON.parse(stdout) as { Dir?: string; Error?: string };
  if (info.Error || !info.Dir) {
    throw new Error(`go mod download ${module} gave no Dir: ${info.Error ?? stdout}`);
  }
  return info.Dir;
}
