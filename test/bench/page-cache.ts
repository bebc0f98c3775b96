// A "cold" start means binaries that must come from disk. GNU dd's iflag=nocache asks the
// kernel (posix_fadvise DONTNEED) to drop a file's pages; pages that a running process maps
// (another cluster on the same binaries) stay, which fincore lets us report.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function evictFromPageCache(files: readonly string[]): Promise<void> {
  await Promise.all(
    files.map((f) => run('dd', [`if=${f}`, 'iflag=nocache', 'count=0', 'status=none'])),
  );
}

/** Bytes of `files` in the page cache, or undefined without util-linux's fincore. */
export async function cachedBytes(files: readonly string[]): Promise<number | undefined> {
  try {
    const { stdout } = await run('fincore', [
      '--bytes',
      '--noheadings',
      '--output',
      'RES',
      ...files,
    ]);
    return stdout
      .split('\n')
      .filter((l) => l.trim())
      .reduce((sum, l) => sum + Number(l.trim()), 0);
  } catch {
    return undefined;
  }
}
