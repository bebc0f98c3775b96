/**
 * What goes into the controller image's file system, as data: the pure half of `build.ts`, so
 * the unit tests can check it without building anything.
 */

/** The controller runs as this user and group (distroless's "nonroot" number). */
export const IMAGE_UID = 65532;

export const NODE_PATH = '/nodejs/bin/node';
export const APP_DIR = '/app';
export const ENTRYPOINT = [NODE_PATH, `${APP_DIR}/dist/bundle/controller.mjs`] as const;

/**
 * The programs an image is built for, on the same runtime layer: the controller (`make image`,
 * `make release`) and the demo application of docs/getting-started.md (`make release`).
 */
export const IMAGE_APPS = {
  controller: { name: 'stepwise-controller', bundle: 'controller', entrypoint: ENTRYPOINT },
  demo: {
    name: 'stepwise-demo',
    bundle: 'demo-app',
    entrypoint: [NODE_PATH, `${APP_DIR}/dist/bundle/demo-app.mjs`],
  },
} as const;
export type ImageApp = keyof typeof IMAGE_APPS;

/**
 * The layers, bottom first, by the top-level paths each holds: Node and its libraries change
 * with a Node upgrade, the bundled controller (which carries its dependencies) with every
 * commit, so a registry that has the older image receives only the last layer.
 */
export const LAYERS = [
  { name: 'runtime', paths: ['etc', 'lib', 'lib64', 'nodejs', 'tmp', 'usr'] },
  { name: 'app', paths: ['app/LICENSE', 'app/dist'] },
] as const;

export interface SharedLibrary {
  /** The path the dynamic loader looks for (and the image has), e.g. /lib64/ld-linux-x86-64.so.2 */
  readonly path: string;
}

/**
 * The shared libraries `ldd` reports for a binary. The vDSO comes from the kernel and has no
 * file; a missing library is an error here rather than a container that cannot start.
 */
export function parseLdd(output: string): SharedLibrary[] {
  const libraries: SharedLibrary[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('linux-vdso.so') || line.startsWith('linux-gate.so')) {
      continue;
    }
    if (line.includes('=> not found')) {
      throw new Error(`ldd: a shared library is missing: ${line}`);
    }
    // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"
    const match = /^(?:\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (!match?.[1]) throw new Error(`ldd: cannot read the line "${line}"`);
    libraries.push({ path: match[1] });
  }
  if (!libraries.some((l) => l.path.includes('/ld-linux'))) {
    throw new Error('ldd: no dynamic loader in its output (is the binary statically linked?)');
  }
  return libraries;
}

/**
 * /etc for a shell-less image: root and the controller's user (no login shell, no home: the
 * controller writes nothing there), and name service from files then DNS, as glibc's built-in
 * modules (2.34+) provide without further libraries.
 */
export function etcFiles(): Record<string, string> {
  return {
    'etc/passwd':
      'root:x:0:0:root:/root:/usr/sbin/nologin\n' +
      `stepwise:x:${IMAGE_UID}:${IMAGE_UID}:stepwise controller:/nonexistent:/usr/sbin/nologin\n`,
    'etc/group': `root:x:0:\nstepwise:x:${IMAGE_UID}:\n`,
    'etc/nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files dns\n',
  };
}

/** `--env` values of the image config. */
export const IMAGE_ENV = {
  NODE_ENV: 'production',
  PATH: '/nodejs/bin',
} as const;

/**
 * The reproducible-tar recipe (reproducible-builds.org): entries sorted by name, every mtime
 * SOURCE_DATE_EPOCH, owner root by number, no atime/ctime or process ids in PAX headers, no
 * ACLs, xattrs or SELinux labels from the build machine.
 */
export function tarArguments(
  epochSeconds: number,
  stagingDir: string,
  archive: string,
  paths: readonly string[],
): string[] {
  const args = [
    '--create',
    `--file=${archive}`,
    `--directory=${stagingDir}`,
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    '--sort=name',
    `--mtime=@${epochSeconds}`,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--no-acls',
    '--no-xattrs',
    '--no-selinux',
  ];
  // A parent directory ("app") is an entry of its own, so it has fixed metadata too.
  const parents = [
    ...new Set(
      paths
        .filter((p) => p.includes('/'))
        .map(parentsOf)
        .flat(),
    ),
  ].sort();
  if (parents.length > 0) args.push('--no-recursion', ...parents, '--recursion');
  args.push('--', ...[...paths].sort());
  return args;
}

function parentsOf(path: string): string[] {
  const parts = path.split('/').slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * The arm64 loader's `--list` run under `qemu -L SYSROOT`, as ldd would print it there: that
 * output starts with a line for the program itself (no name), and names the loader by its path
 * in the sysroot, which the image holds at the path the program asks for.
 */
export function lddFromLoaderList(output: string, sysroot: string): string {
  const prefix = sysroot.endsWith('/') ? sysroot : `${sysroot}/`;
  return output
    .split('\n')
    .filter((line) => !/^\s*\(0x[0-9a-f]+\)$/.test(line))
    .map((line) => {
      const match = /^(\s*)(\/\S+) => (\S+) (\(0x[0-9a-f]+\))$/.exec(line);
      return match?.[3]?.startsWith(prefix) ? `${match[1]}${match[2]} ${match[4]}` : line;
    })
    .join('\n');
}
