import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../../src/executors/find-executable.js';
import { ImageCache, type ImageCacheOptions } from '../../src/images/image-cache.js';
import { ImagePullError, type ImagePullErrorKind } from '../../src/images/pull-error.js';
import { startRegistry, type RegistryAccount, type TestRegistry } from '../../../../test/support/registry.js';
import { buildTestImages } from '../../../../test/support/test-images.js';

/**
 * A real registry holding the test images (a, b, private: see test/support/test-images.ts), and
 * image caches on fresh data directories that speak to it. skopeo runs through a wrapper that
 * writes down each of its subcommands, so a test can count the copies a pull made.
 */
export interface ImageFixture {
  registry: TestRegistry;
  /** The digest each pushed tag got, by image name (`t/a:1`). */
  digests: Map<string, string>;
  /** A cache on a fresh data directory, or on `dataDir`; `options`: its limit and the images jobs use. */
  newCache(dataDir?: string, options?: Pick<ImageCacheOptions, 'limitBytes' | 'inUse' | 'recheckMs' | 'now'>): ImageCache;
  /** skopeo's subcommands run so far (`inspect`, `copy`), in order. */
  skopeoRuns(): string[];
  dir: string;
  stop(): Promise<void>;
}

export async function startImageFixture(account?: RegistryAccount): Promise<ImageFixture> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-image-test-'));
  const images = buildTestImages(dir);
  const registry = await startRegistry(account);
  const digests = new Map<string, string>();
  for (const tag of images.tags) digests.set(`t/${tag}:1`, registry.push(images.layout, tag, `t/${tag}:1`));

  const runs = path.join(dir, 'skopeo-runs');
  const wrapper = path.join(dir, 'skopeo');
  const skopeo = findOnPath('skopeo', process.env.PATH ?? '')!;
  // Appends the subcommand ($2, after the global --registries-conf the cache gives first: never a credential) to a file, then is skopeo.
  writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$2" >> '${runs}'\nexec '${skopeo}' "$@"\n`);
  chmodSync(wrapper, 0o755);

  let caches = 0;
  const newCache = (dataDir = path.join(dir, `data-${++caches}`), options = {}) =>
    new ImageCache({ dataDir, insecureRegistries: [registry.host], skopeo: wrapper, ...options });
  const skopeoRuns = () => (existsSync(runs) ? readFileSync(runs, 'utf8').split('\n').filter(Boolean) : []);
  const stop = async () => {
    await registry.stop();
    // Unpacked images are read-only, and rmSync cannot empty a folder without write permission (unless run as root).
    execFileSync('chmod', ['-R', 'u+w', dir]);
    rmSync(dir, { recursive: true, force: true });
  };
  return { registry, digests, newCache, skopeoRuns, dir, stop };
}

/** Asserts that `promise` rejects with an ImagePullError of `kind`; returns it for more checks. */
export async function pullFailure(promise: Promise<unknown>, kind: ImagePullErrorKind): Promise<ImagePullError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ImagePullError && error.kind === kind) return error;
    throw new Error(`expected an ImagePullError of kind ${kind}, got: ${String(error)}`);
  }
  throw new Error(`expected an ImagePullError of kind ${kind}, but the pull succeeded`);
}
