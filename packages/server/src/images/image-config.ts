import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What of an image's configuration a task honours (the OCI image config's `config` object, as
 * `docker run` reads it): its environment, working directory, user, entrypoint and command. The
 * user is resolved to numbers from the image's own /etc/passwd and /etc/group when it is unpacked
 * (rootfs-prepare.ts), as docker does at each start.
 */
export interface ImageConfig {
  /** `NAME=value` entries, in the image's order. */
  env: string[];
  workingDir: string | null;
  /** The user as the image names it (`app`, `1000`, `1000:1000`, `app:staff`); null: root. */
  user: string | null;
  entrypoint: string[];
  cmd: string[];
  /** The user resolved: null when the image names none (root). */
  uid: number | null;
  gid: number | null;
  /** Why the user could not be resolved ("no user app in the image's /etc/passwd"): a job of the image fails with it. */
  userProblem?: string;
}

/** A blob of the layout bigger than this is not an image config or manifest (real ones are a few KiB). */
const MAX_BLOB_BYTES = 4 * 1024 * 1024;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const REF_NAME = 'org.opencontainers.image.ref.name';

/** Reads the config of the image tagged `tag` in the OCI layout at `layout` (written by skopeo copy). */
export function readImageConfig(layout: string, tag: string): Omit<ImageConfig, 'uid' | 'gid' | 'userProblem'> {
  const index = readJson(path.join(layout, 'index.json')) as { manifests?: { digest?: string; annotations?: Record<string, string> }[] };
  const entry = index.manifests?.find((m) => m.annotations?.[REF_NAME] === tag);
  if (!entry?.digest) throw new Error(`the image cache's layout has no image tagged ${tag}`);
  const manifest = readBlob(layout, entry.digest) as { config?: { digest?: string } };
  if (!manifest.config?.digest) throw new Error(`the manifest ${entry.digest} names no config`);
  const config = (readBlob(layout, manifest.config.digest) as { config?: Record<string, unknown> }).config ?? {};
  return {
    env: strings(config.Env),
    workingDir: typeof config.WorkingDir === 'string' && config.WorkingDir ? config.WorkingDir : null,
    user: typeof config.User === 'string' && config.User ? config.User : null,
    entrypoint: strings(config.Entrypoint),
    cmd: strings(config.Cmd),
  };
}

function readBlob(layout: string, digest: string): unknown {
  if (!DIGEST.test(digest)) throw new Error(`"${digest.slice(0, 80)}" is not a sha256 digest`);
  return readJson(path.join(layout, 'blobs', 'sha256', digest.slice('sha256:'.length)));
}

function readJson(file: string): unknown {
  const stat = lstatSync(file);
  if (!stat.isFile() || stat.size > MAX_BLOB_BYTES) throw new Error(`${file} is not a file of at most ${MAX_BLOB_BYTES} bytes`);
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The PATH a task in the image gets when the image sets none: docker's default. */
export const DEFAULT_IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
