import path from 'node:path';

/** The name an image digest has in the cache's folders (`sha256-<hex>`: no colon, which `src:dst` bind syntaxes split on). */
export const DIGEST_NAME = /^sha256-[0-9a-f]{64}$/;

export const nameOfDigest = (digest: string): string => digest.replace(':', '-');
export const digestOfName = (name: string): string => name.replace('-', ':');

/**
 * Where each part of the image cache is, under its root: the OCI layout of every blob (`oci/`), each
 * image unpacked (`rootfs/`), its config (`configs/`) and what the server knows of it (`meta/`), and
 * the two locks (cache-locks.ts).
 */
export class CachePaths {
  readonly layout: string;
  readonly rootfsDir: string;
  constructor(readonly root: string) {
    this.layout = path.join(root, 'oci');
    this.rootfsDir = path.join(root, 'rootfs');
  }

  rootfsOf(digest: string): string {
    return path.join(this.rootfsDir, nameOfDigest(digest));
  }

  configFileOf(digest: string): string {
    return path.join(this.root, 'configs', `${nameOfDigest(digest)}.json`);
  }

  metaFileOf(digest: string): string {
    return path.join(this.root, 'meta', `${nameOfDigest(digest)}.json`);
  }

  /** Held while the layout is written: a copy and an unpack, the removal of a tag and the blobs' garbage collection. */
  get layoutLock(): string {
    return path.join(this.root, 'oci.lock');
  }

  /** Held while a pull decides that an unpacked image is there to use, and while an eviction decides what to remove. */
  get rootfsLock(): string {
    return path.join(this.root, 'rootfs.lock');
  }
}
