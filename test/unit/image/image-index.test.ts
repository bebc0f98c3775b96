import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OCI_INDEX, OCI_MANIFEST, digestOf, imageIndex } from '../../../image/image-index.ts';

const manifest = (hex: string): { mediaType: string; digest: string; size: number } => ({
  mediaType: OCI_MANIFEST,
  digest: `sha256:${hex.repeat(64)}`,
  size: 564,
});

describe('the multi-platform image index', () => {
  it('lists each platform manifest with its OCI platform, in the order given', () => {
    const index = JSON.parse(
      imageIndex([
        { platform: 'linux/amd64', manifest: manifest('a') },
        { platform: 'linux/arm64', manifest: manifest('b') },
      ]),
    ) as { schemaVersion: number; mediaType: string; manifests: unknown[] };
    assert.equal(index.schemaVersion, 2);
    assert.equal(index.mediaType, OCI_INDEX);
    assert.deepEqual(index.manifests, [
      { ...manifest('a'), platform: { architecture: 'amd64', os: 'linux' } },
      { ...manifest('b'), platform: { architecture: 'arm64', os: 'linux' } },
    ]);
  });

  it('is the same bytes, so the same digest, for the same manifests', () => {
    const images = [{ platform: 'linux/amd64' as const, manifest: manifest('c') }];
    assert.equal(digestOf(imageIndex(images)), digestOf(imageIndex(images)));
    assert.match(digestOf(imageIndex(images)), /^sha256:[0-9a-f]{64}$/);
  });

  it('refuses a platform twice and a descriptor that is not an OCI image manifest', () => {
    assert.throws(
      () =>
        imageIndex([
          { platform: 'linux/amd64', manifest: manifest('a') },
          { platform: 'linux/amd64', manifest: manifest('b') },
        ]),
      /linux\/amd64 is in the index twice/,
    );
    const docker = {
      ...manifest('a'),
      mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
    };
    assert.throws(
      () => imageIndex([{ platform: 'linux/arm64', manifest: docker }]),
      /not an OCI image manifest/,
    );
  });
});
