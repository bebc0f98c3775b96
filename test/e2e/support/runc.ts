/**
 * The controller's image under a real OCI runtime, as a node would run it: Debian's runc
 * (unpacked into the cache by image/tools.sh, never installed), a root file system from the image
 * archive (crane export flattens its layers, GNU tar extracts them), and a runtime spec that
 * starts from `runc spec` and takes the entrypoint, user, environment and working directory from
 * the image's config. The root file system is read-only (as `readOnlyRootFilesystem` in the
 * Deployment); the container shares the host's network, so it reaches the loopback API server;
 * the kubeconfig is bind-mounted read-only.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../cluster/state.ts';
import type { ControllerLauncher } from './controller.ts';

/** Where a container finds the kubeconfig it is given. */
const KUBECONFIG_DIR = '/var/run/stepwise/kubeconfig';

/** The `config` part of an OCI image config (the fields a runtime uses). */
export interface ImageConfig {
  readonly Entrypoint?: readonly string[];
  readonly Cmd?: readonly string[] | null;
  readonly Env?: readonly string[];
  readonly User?: string;
  readonly WorkingDir?: string;
  readonly Labels?: Readonly<Record<string, string>>;
}

/** Runs a command to completion and returns its stdout; throws with its output otherwise. */
export function run(command: string, args: readonly string[], input?: string): string {
  const result = spawnSync(command, args, {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    input,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status ?? result.signal}: ` +
        `${result.error?.message ?? ''}${result.stdout}${result.stderr}`.trim(),
    );
  }
  return result.stdout;
}

export interface ImageTools {
  readonly crane: string;
  readonly runc: string;
  readonly containerd: string;
  readonly ctr: string;
}

/** crane, runc, containerd and ctr, built or unpacked into the cache on first use. */
export function imageTools(): ImageTools {
  const result = spawnSync(join(REPO_ROOT, 'image', 'tools.sh'), [], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'], // a first build shows its progress
  });
  if (result.status !== 0) throw new Error(`image/tools.sh exited with ${result.status}`);
  const dir = result.stdout.trim();
  return {
    crane: join(dir, 'crane'),
    runc: join(dir, 'runc'),
    containerd: join(dir, 'containerd'),
    ctr: join(dir, 'ctr'),
  };
}

export interface UnpackedImage {
  readonly rootfs: string;
  readonly config: ImageConfig;
}

/** Unpacks a `docker save`-style archive (what `make image` writes) into `dir`/rootfs. */
export function unpackImage(crane: string, archive: string, dir: string): UnpackedImage {
  const rootfs = join(dir, 'rootfs');
  mkdirSync(rootfs, { recursive: true });
  const flat = join(dir, 'filesystem.tar');
  run('sh', ['-c', `"$0" export - "$1" < "$2"`, crane, flat, archive]);
  run('tar', [
    '--extract',
    '--file',
    flat,
    '--directory',
    rootfs,
    '--same-owner',
    '--preserve-permissions',
  ]);
  rmSync(flat);
  const [manifest] = JSON.parse(run('tar', ['-xOf', archive, 'manifest.json'])) as {
    Config: string;
  }[];
  if (!manifest) throw new Error(`${archive}: manifest.json lists no image`);
  const file = JSON.parse(run('tar', ['-xOf', archive, manifest.Config])) as {
    config?: ImageConfig;
  };
  return { rootfs, config: file.config ?? {} };
}

/** What `make image` prints into image.json beside the archive. */
export interface ImageSummary {
  readonly tag: string;
  readonly digest: string;
  readonly imageId: string;
  readonly compressedBytes: number;
  readonly archive: string;
}

/**
 * The image this run tests: the one `make e2e` built once for every file that needs it
 * (STEPWISE_E2E_IMAGE, its output directory), else `make image` now.
 */
export function runImage(): ImageSummary {
  const built = process.env.STEPWISE_E2E_IMAGE;
  return built ? readSummary(built) : makeImage();
}

/** `make image`, as a person runs it; the build's progress goes to the test's stderr. */
export function makeImage(out?: string): ImageSummary {
  const result = spawnSync(
    'make',
    ['--no-print-directory', 'image', ...(out ? [`IMAGE_OUT=${out}`] : [])],
    { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (result.status !== 0)
    throw new Error(`make image exited with ${result.status}:\n${result.stdout}`);
  return readSummary(out ?? join(REPO_ROOT, '.stepwise', 'image'));
}

/** The image.json that `make image` writes beside the archive in `out`. */
function readSummary(out: string): ImageSummary {
  return JSON.parse(readFileSync(join(out, 'image.json'), 'utf8')) as ImageSummary;
}

/** The subset of the OCI runtime spec this file changes (the rest is `runc spec`'s). */
interface RuntimeSpec {
  process: {
    terminal: boolean;
    user: { uid: number; gid: number };
    args: string[];
    env: string[];
    cwd: string;
  };
  root: { path: string; readonly: boolean };
  hostname?: string;
  mounts: { destination: string; type: string; source: string; options: string[] }[];
  linux: { namespaces: { type: string }[] };
}

/** A pod volume as the kubelet would mount it: a host directory bound read-only, or an emptyDir. */
export interface ContainerVolume {
  readonly destination: string;
  /** A directory on the host (a Secret volume's files, say); without it, an empty tmpfs. */
  readonly source?: string;
}

export interface ContainerOptions {
  /** A kubeconfig on the host, copied so the container's user can read it. */
  readonly kubeconfig: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly volumes?: readonly ContainerVolume[];
}

/** Containers of one test file: one runc state directory, each container a bundle under it. */
export class RuncContainers {
  readonly #runc: string;
  readonly #dir: string;
  readonly #ids = new Set<string>();

  constructor(runc: string, dir: string) {
    this.#runc = runc;
    this.#dir = dir;
    mkdirSync(join(dir, 'state'), { recursive: true });
  }

  /** `runc --root <ours> …`: our containers only, never the machine's default state. */
  runc(...args: string[]): string {
    return run(this.#runc, ['--root', join(this.#dir, 'state'), ...args]);
  }

  /** A launcher that runs `image` as container `id` in the foreground of `runc run`. */
  launcher(id: string, image: UnpackedImage, opts: ContainerOptions): ControllerLauncher {
    const bundle = join(this.#dir, id);
    rmSync(bundle, { recursive: true, force: true });
    mkdirSync(join(bundle, 'kubeconfig'), { recursive: true });
    copyFileSync(opts.kubeconfig, join(bundle, 'kubeconfig', 'config'));
    chmodSync(join(bundle, 'kubeconfig', 'config'), 0o644);
    run(this.#runc, ['spec', '--bundle', bundle]);
    const specFile = join(bundle, 'config.json');
    const spec = JSON.parse(readFileSync(specFile, 'utf8')) as RuntimeSpec;
    const [uid = NaN, gid = uid] = (image.config.User ?? '0').split(':').map(Number);
    if (!Number.isInteger(uid) || !Number.isInteger(gid)) {
      throw new Error(`image user "${image.config.User}" is not numeric uid:gid`);
    }
    const env = {
      ...Object.fromEntries((image.config.Env ?? []).map((e) => e.split(/=(.*)/s, 2))),
      KUBECONFIG: `${KUBECONFIG_DIR}/config`,
      ...opts.env,
    } as Record<string, string>;
    const entrypoint = [...(image.config.Entrypoint ?? []), ...(image.config.Cmd ?? [])];
    const runtimeSpec = (flags: readonly string[]): RuntimeSpec => ({
      ...spec,
      process: {
        ...spec.process,
        terminal: false,
        user: { uid, gid },
        args: [...entrypoint, ...flags],
        env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
        cwd: image.config.WorkingDir || '/',
      },
      root: { path: image.rootfs, readonly: true },
      hostname: id,
      mounts: [
        ...spec.mounts,
        {
          destination: KUBECONFIG_DIR,
          type: 'bind',
          source: join(bundle, 'kubeconfig'),
          options: ['rbind', 'ro', 'nosuid', 'nodev', 'noexec'],
        },
        ...(opts.volumes ?? []).map((v) =>
          v.source === undefined
            ? {
                destination: v.destination,
                type: 'tmpfs',
                source: 'tmpfs',
                options: ['nosuid', 'nodev', 'noexec', 'mode=1777', 'size=64m'],
              }
            : {
                destination: v.destination,
                type: 'bind',
                source: v.source,
                options: ['rbind', 'ro', 'nosuid', 'nodev', 'noexec'],
              },
        ),
      ],
      // No network namespace: the host's, where the API server listens on 127.0.0.1.
      linux: {
        ...spec.linux,
        namespaces: spec.linux.namespaces.filter((n) => n.type !== 'network'),
      },
    });
    const kill = (signal: string): void => {
      spawnSync(this.#runc, ['--root', join(this.#dir, 'state'), 'kill', id, signal]);
    };
    return {
      start: (flags): ChildProcess => {
        writeFileSync(specFile, JSON.stringify(runtimeSpec(flags), null, 2));
        this.#ids.add(id);
        return spawn(
          this.#runc,
          ['--root', join(this.#dir, 'state'), 'run', '--bundle', bundle, id],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
      },
      signal: (signal) => kill(signal === 'SIGTERM' ? 'TERM' : 'KILL'),
      killSync: () => this.#deleteSync(id),
    };
  }

  /** The host pid of a container's first process (the controller). */
  pid(id: string): number {
    return (JSON.parse(this.runc('state', id)) as { pid: number }).pid;
  }

  /** Removes every container this object started, running or not; then the bundles. */
  deleteAll(): void {
    for (const id of [...this.#ids]) this.#deleteSync(id);
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #deleteSync(id: string): void {
    // Once only: runc would make its state directory again after deleteAll removed it.
    if (!this.#ids.delete(id)) return;
    spawnSync(this.#runc, ['--root', join(this.#dir, 'state'), 'delete', '--force', id]);
  }
}
