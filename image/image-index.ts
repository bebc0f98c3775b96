/**
 * The controller image for several platforms as one OCI image index: the per-platform OCI
 * layouts image/build.ts writes, merged into one layout whose index.json points at an image
 * index that lists each platform's manifest. Plain JSON and content-addressed files, so the
 * same inputs give the same index digest.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './runtime.ts';
import type { ImagePlatform } from './runtime.ts';

export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly platform?: { readonly architecture: string; readonly os: string };
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface PlatformImage {
  readonly platform: ImagePlatform;
  /** The image manifest's descriptor, from its single-image layout's index.json. */
  readonly manifest: Descriptor;
}

/** The image index for these platform images (pure; its bytes are what gets digested). */
export function imageIndex(images: readonly PlatformImage[]): string {
  const seen = new Set<string>();
  const manifests = images.map(({ platform, manifest }) => {
    if (seen.has(platform)) throw new Error(`${platform} is in the index twice`);
    seen.add(platform);
    if (manifest.mediaType !== OCI_MANIFEST) {
      throw new Error(`${platform}: ${manifest.mediaType} is not an OCI image manifest`);
    }
    const [os, architecture] = platform.split('/') as [string, string];
    return {
      mediaType: manifest.mediaType,
      digest: manifest.digest,
      size: manifest.size,
      platform: { architecture, os },
    };
  });
  return JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests });
}

export function digestOf(bytes: string | Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const blobPath = (layout: string, digest: string): string =>
  join(layout, 'blobs', ...digest.split(':'));

interface LayoutIndex {
  readonly manifests: readonly Descriptor[];
}

/** The one image manifest a single-image layout (crane pull --format=oci) holds. */
export function layoutManifest(layout: string): Descriptor {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as LayoutIndex;
  const [manifest, ...more] = index.manifests;
  if (!manifest || more.length > 0) {
    throw new Error(`${layout} holds ${index.manifests.length} images, not one`);
  }
  return manifest;
}

/**
 * Merges single-image layouts into `out`, an OCI layout whose index.json has one entry: the
 * image index of all of them, named `tag` (org.opencontainers.image.ref.name). Returns the
 * index's digest.
 */
export function writeMultiPlatformLayout(
  layouts: readonly { platform: ImagePlatform; dir: string }[],
  out: string,
  tag: string,
): string {
  mkdirSync(join(out, 'blobs', 'sha256'), { recursive: true });
  const images = layouts.map(({ platform, dir }) => {
    const manifest = layoutManifest(dir);
    const body = JSON.parse(readFileSync(blobPath(dir, manifest.digest), 'utf8')) as {
      config: Descriptor;
      layers: readonly Descriptor[];
    };
    for (const digest of [
      manifest.digest,
      body.config.digest,
      ...body.layers.map((l) => l.digest),
    ]) {
      const target = blobPath(out, digest);
      if (!existsSync(target)) copyFileSync(blobPath(dir, digest), target);
    }
    return { platform, manifest };
  });
  const index = imageIndex(images);
  const digest = digestOf(index);
  writeFileSync(blobPath(out, digest), index);
  writeFileSync(join(out, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  const top: Descriptor = {
    mediaType: OCI_INDEX,
    digest,
    size: Buffer.byteLength(index),
    annotations: { 'org.opencontainers.image.ref.name': tag },
  };
  writeFileSync(
    join(out, 'index.json'),
    JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests: [top] }),
  );
  return digest;
}

/** The image's file system: its layers, bottom first, unpacked into `dest`. */
export function unpackImage(layout: string, dest: string): void {
  const manifest = layoutManifest(layout);
  const body = JSON.parse(readFileSync(blobPath(layout, manifest.digest), 'utf8')) as {
    layers: readonly Descriptor[];
  };
  mkdirSync(dest, { recursive: true });
  for (const layer of body.layers) {
    run('tar', ['-xzf', blobPath(layout, layer.digest), '-C', dest, '--no-same-owner']);
  }
}
