import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ENTRYPOINT,
  IMAGE_UID,
  LAYERS,
  etcFiles,
  lddFromLoaderList,
  parseLdd,
  tarArguments,
} from '../../../image/rootfs.ts';

// What `ldd` printed for Node 24's binary on Debian 12.
const NODE_LDD = `	linux-vdso.so.1 (0x00007f07cc1ce000)
	libdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f07cc1b8000)
	libstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f07cbe00000)
	libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f07cc0d8000)
	libgcc_s.so.1 => /lib/x86_64-linux-gnu/libgcc_s.so.1 (0x00007f07cc0b8000)
	libpthread.so.0 => /lib/x86_64-linux-gnu/libpthread.so.0 (0x00007f07cc0b3000)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f07cbc1e000)
	/lib64/ld-linux-x86-64.so.2 (0x00007f07cc1d0000)
`;

describe('image root file system', () => {
  it('takes every library ldd lists, with the loader, and not the vDSO', () => {
    assert.deepEqual(
      parseLdd(NODE_LDD).map((l) => l.path),
      [
        '/lib/x86_64-linux-gnu/libdl.so.2',
        '/lib/x86_64-linux-gnu/libstdc++.so.6',
        '/lib/x86_64-linux-gnu/libm.so.6',
        '/lib/x86_64-linux-gnu/libgcc_s.so.1',
        '/lib/x86_64-linux-gnu/libpthread.so.0',
        '/lib/x86_64-linux-gnu/libc.so.6',
        '/lib64/ld-linux-x86-64.so.2',
      ],
    );
  });

  it('refuses a missing library, an unreadable line and a static binary', () => {
    assert.throws(() => parseLdd(`${NODE_LDD}\tlibfoo.so.1 => not found\n`), /missing: libfoo/);
    assert.throws(() => parseLdd(`${NODE_LDD}\tsomething odd\n`), /cannot read/);
    assert.throws(() => parseLdd('\tnot a dynamic executable\n'), /cannot read/);
    assert.throws(() => parseLdd('\tlinux-vdso.so.1 (0x00007f07cc1ce000)\n'), /no dynamic loader/);
  });

  it('has a non-root user with no login shell and no home', () => {
    const etc = etcFiles();
    assert.match(
      etc['etc/passwd'] ?? '',
      new RegExp(`^stepwise:x:${IMAGE_UID}:${IMAGE_UID}:.*:/nonexistent:/usr/sbin/nologin$`, 'm'),
    );
    assert.match(etc['etc/group'] ?? '', new RegExp(`^stepwise:x:${IMAGE_UID}:$`, 'm'));
    assert.equal(ENTRYPOINT[0], '/nodejs/bin/node');
  });

  it('packs each path into exactly one layer', () => {
    const paths = LAYERS.flatMap((l) => [...l.paths]);
    assert.equal(new Set(paths).size, paths.length);
    assert.ok(paths.includes('nodejs') && paths.includes('app/dist'));
  });

  it('tars reproducibly: sorted, fixed mtime and owner, parents as entries of their own', () => {
    const args = tarArguments(1700000000, '/stage', '/out/app.tar', [
      'app/package.json',
      'app/dist',
    ]);
    for (const flag of [
      '--sort=name',
      '--mtime=@1700000000',
      '--owner=0',
      '--group=0',
      '--numeric-owner',
    ]) {
      assert.ok(args.includes(flag), flag);
    }
    assert.ok(args.some((a) => a.startsWith('--pax-option=exthdr.name=%d/PaxHeaders/%f')));
    assert.deepEqual(args.slice(args.indexOf('--no-recursion')), [
      '--no-recursion',
      'app',
      '--recursion',
      '--',
      'app/dist',
      'app/package.json',
    ]);
  });
});

describe('image root file system for linux/arm64', () => {
  // What Debian's arm64 loader printed for Node 24's arm64 binary under qemu-aarch64-static -L.
  const SYSROOT = '/cache/arm64/sysroot';
  const LISTED = `	 (0x0000000000400000)
	libdl.so.2 => /lib/aarch64-linux-gnu/libdl.so.2 (0x0000005502850000)
	libstdc++.so.6 => /usr/lib/aarch64-linux-gnu/libstdc++.so.6 (0x0000005502880000)
	libc.so.6 => /lib/aarch64-linux-gnu/libc.so.6 (0x0000005502bd0000)
	/lib/ld-linux-aarch64.so.1 => ${SYSROOT}/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1 (0x0000005500000000)
`;

  it('takes the libraries the arm64 loader lists, and the loader at the path Node asks for', () => {
    assert.deepEqual(
      parseLdd(lddFromLoaderList(LISTED, SYSROOT)).map((l) => l.path),
      [
        '/lib/aarch64-linux-gnu/libdl.so.2',
        '/usr/lib/aarch64-linux-gnu/libstdc++.so.6',
        '/lib/aarch64-linux-gnu/libc.so.6',
        '/lib/ld-linux-aarch64.so.1',
      ],
    );
  });
});
