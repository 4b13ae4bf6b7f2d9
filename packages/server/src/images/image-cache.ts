import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CacheInventory, type CacheListing, type ImagesInUse, type PruneResult, type PruneScope } from './cache-inventory.js';
import { CachePaths, nameOfDigest } from './cache-paths.js';
import { readImageConfig, type ImageConfig } from './image-config.js';
import { manifestSummary } from './manifest-summary.js';
import { prepareRootfs, resolveImageUser } from './rootfs-prepare.js';
import { classifyPullFailure, ImagePullError, type PullContext } from './pull-error.js';
import { RecentDigests } from './recent-digests.js';
import { parseImageReference, type ImageReference } from './reference.js';
import { removeTree } from './remove-tree.js';
import { runTool } from './run-tool.js';
import { SharedLock } from './shared-lock.js';
import { withToolHome, type RegistryCredentials, type RegistryMirror, type ToolHome } from './tool-home.js';

export interface ImageCacheOptions {
  /** The server's data directory: the cache is its `images/` folder, unless `root` says where. */
  dataDir: string;
  /** Where the cache is (RUNYARD_IMAGE_CACHE_DIR). */
  root?: string;
  /** Registries spoken to over plain HTTP or without checking their certificate (a local mirror, the tests' registry). */
  insecureRegistries?: readonly string[];
  skopeo?: string;
  umoci?: string;
  /** After a pull, the least recently used images no job uses are removed until the cache holds at most this (unpacked). Absent: no limit. */
  limitBytes?: number;
  /** The images jobs use now, which are never removed. Absent: none (a cache outside the server). */
  inUse?: ImagesInUse;
  /** How long a registry's answer (the digest of a reference, for an account) is used before it is asked again (recent-digests.ts); default 0: every pull asks. */
  recheckMs?: number;
  /** The clock of recheckMs (tests). */
  now?: () => number;
  /** Operators' mirrors of registries (RUNYARD_REGISTRY_MIRRORS), tried before the registry, each with the operator's account at it. */
  mirrors?: readonly Omit<RegistryMirror, 'insecure'>[];
}

export interface PullOptions {
  /** The job's owner's account at the image's registry; null or absent pulls anonymously. */
  credentials?: RegistryCredentials | null;
  /** One line at a time: what is pulled, its layers and size, how long it took (for the job's log). */
  onProgress?: (line: string) => void;
  /**
   * Called with the digest the reference resolved to, and awaited, before the cache is looked at:
   * the job records that it uses the digest here, so that no eviction removes the image between
   * this pull and the job's start (cache-inventory.ts).
   */
  onResolved?: (digest: string) => Promise<void>;
}

export interface PulledImage {
  /** The reference as parsed (`docker.io/library/ubuntu:22.04`). */
  image: string;
  /** The manifest's digest the reference resolved to. */
  digest: string;
  /** The unpacked root filesystem, shared by every job of this digest; read-only. */
  rootfs: string;
  /** What a task in it honours: Env, WorkingDir, User (resolved), Entrypoint, Cmd. */
  config: ImageConfig;
}

/**
 * The shared image cache under `<dataDir>/images/`: one OCI layout (`oci/`) where skopeo stores
 * every blob once by its digest, so images that share a layer hold it once, and one unpacked root
 * filesystem per image digest (`rootfs/sha256-<hex>`: no colon, which `src:dst` bind syntaxes split on).
 *
 * Every pull first asks the registry, with the caller's own credentials, which digest the reference
 * is (skopeo inspect): that is also the access check, so an image another user pulled is never
 * handed to someone the registry would refuse, even from the cache.
 */
export class ImageCache {
  readonly root: string;
  private readonly paths: CachePaths;
  private readonly layout: string;
  private readonly skopeo: string;
  private readonly umoci: string;
  private readonly insecure: ReadonlySet<string>;
  private readonly recent: RecentDigests;
  private readonly mirrors: ReadonlyMap<string, RegistryMirror>;
  /** Pulls under way, by digest: a second job of the same image waits for the first's pull. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /**
   * skopeo rewrites the layout's index.json whole at the end of a copy: copies into it go one at a
   * time, in this process and between processes (oci.lock).
   */
  private readonly layoutLock: SharedLock;
  private readonly inventory: CacheInventory;

  constructor(options: ImageCacheOptions) {
    this.root = options.root ?? path.join(options.dataDir, 'images');
    this.paths = new CachePaths(this.root);
    this.layout = this.paths.layout;
    this.skopeo = options.skopeo ?? 'skopeo';
    this.umoci = options.umoci ?? 'umoci';
    this.insecure = new Set(options.insecureRegistries ?? []);
    this.recent = new RecentDigests(options.recheckMs ?? 0, options.now);
    this.mirrors = new Map((options.mirrors ?? []).map((m) => [m.registry, { ...m, insecure: this.insecure.has(m.location) }]));
    this.layoutLock = new SharedLock(this.paths.layoutLock);
    this.inventory = new CacheInventory({
      paths: this.paths,
      layoutLock: this.layoutLock,
      rootfsLock: new SharedLock(this.paths.rootfsLock),
      limitBytes: options.limitBytes ?? Infinity,
      inUse: options.inUse ?? (async () => new Map()),
      umoci: this.umoci,
    });
  }

  rootfsOf(digest: string): string {
    return this.paths.rootfsOf(digest);
  }

  /** The unpacked images, least recently used first, with the jobs that use each now; the cache's total and limit. */
  list(): Promise<CacheListing> {
    return this.inventory.list();
  }

  /** Removes unused images (cache-inventory.ts: prune); a digest that is not cached or that a job uses is refused (ImageCacheError). */
  prune(scope: PruneScope): Promise<PruneResult> {
    return this.inventory.prune(scope);
  }

  /** The config of an unpacked image: kept beside it, or read again from the layout (an image unpacked before configs were kept). */
  configOf(digest: string): ImageConfig {
    const file = this.paths.configFileOf(digest);
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as ImageConfig;
    return this.readConfig(digest, this.rootfsOf(digest));
  }

  private readConfig(digest: string, rootfs: string): ImageConfig {
    const config = readImageConfig(this.layout, nameOfDigest(digest));
    return { ...config, ...resolveImageUser(rootfs, config.user) };
  }

  async pull(image: string, options: PullOptions = {}): Promise<PulledImage> {
    const ref = parseImageReference(image);
    try {
      return await this.pullParsed(ref, options);
    } catch (error) {
      // The cache's own small files (a pull's auth file, a lock, a config) on a full disk: said as a full cache, as a layer's would be.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT')
        throw new ImagePullError(
          'disk-full',
          `no space left in the image cache (${this.root}) while pulling ${ref.canonical}: ${(error as Error).message}`,
        );
      throw error;
    }
  }

  private async pullParsed(ref: ImageReference, options: PullOptions): Promise<PulledImage> {
    const say = options.onProgress ?? (() => {});
    const credentials = options.credentials ?? null;
    const started = Date.now();
    const mirror = this.mirrors.get(ref.registry) ?? null;
    return withToolHome(
      path.join(this.root, 'tmp'),
      ref.registry,
      credentials,
      async (home) => {
        const context: PullContext = {
          image: ref.canonical,
          registry: ref.registry,
          username: credentials?.username ?? null,
          cacheDir: this.root,
          secrets: home.secrets,
        };
        const recent = this.recent.get(ref.canonical, credentials);
        let digest: string;
        if (recent) {
          digest = recent.digest;
          say(
            `${ref.canonical} is ${digest} (the registry said so ${(recent.ageMs / 1000).toFixed(1)} s ago${credentials ? ` to ${credentials.username}` : ''})`,
          );
        } else {
          const via = mirror
            ? ` (its mirror ${mirror.location} first${mirror.credentials ? `, as ${mirror.credentials.username}` : ''})`
            : '';
          say(`Resolving ${ref.canonical} at ${ref.registry}${credentials ? ` as ${credentials.username}` : ' (anonymous)'}${via}`);
          digest = await this.resolve(ref, home, context, say);
          this.recent.set(ref.canonical, credentials, digest);
        }
        await options.onResolved?.(digest);
        const rootfs = this.rootfsOf(digest);
        if (await this.inventory.useIfCached(digest, ref.canonical)) {
          say(`${digest} is in the cache`);
          return { image: ref.canonical, digest, rootfs, config: this.configOf(digest) };
        }
        await this.fetchOnce(ref, digest, home, context, say);
        say(`Pulled ${ref.canonical} (${digest}) in ${seconds(started)}`);
        const config = this.configOf(digest);
        await this.makeRoom(digest, say);
        return { image: ref.canonical, digest, rootfs, config };
      },
      mirror,
    );
  }

  /** After a pull, the least recently used images no job uses go until the cache is under its limit (never this pull's image). */
  private async makeRoom(digest: string, say: (line: string) => void): Promise<void> {
    if (this.inventory.limitBytes === Infinity) return;
    try {
      await this.inventory.prune({ kind: 'beyond-limit' }, digest);
    } catch (error) {
      // The job has its image: a failed eviction is the cache's problem, not the job's.
      say(`the cache could not remove images beyond its limit: ${(error as Error).message}`);
    }
  }

  /** The digest the reference names now (the hash of the manifest the registry sends), and its layers for the log. */
  private async resolve(ref: ImageReference, home: ToolHome, context: PullContext, say: (line: string) => void): Promise<string> {
    // skopeo refuses a reference with both a tag and a digest: the digest is what counts.
    const named = ref.digest ? `${ref.registry}/${ref.repository}@${ref.digest}` : ref.canonical;
    const args = [
      `--registries-conf=${home.registriesConf}`,
      'inspect',
      '--raw',
      `--authfile=${home.authFile}`,
      ...this.tls(ref, '--tls-verify=false'),
      `docker://${named}`,
    ];
    const result = await runTool(this.skopeo, args, home.env);
    if (result.code !== 0) throw classifyPullFailure(result.stderr, context);
    const digest = ref.digest ?? `sha256:${createHash('sha256').update(result.stdout).digest('hex')}`;
    say(`${ref.canonical} is ${digest}: ${manifestSummary(result.stdout)}`);
    return digest;
  }

  /**
   * fetch(), as the one pull of the digest under way in this process: a second job of the image
   * waits for the first's (in the map at once, with no wait between the look and the entry, so two
   * jobs never both fetch), then finds it cached; if the first failed, it pulls on its own (the
   * first's failure names the first job's user and account).
   */
  private async fetchOnce(
    ref: ImageReference,
    digest: string,
    home: ToolHome,
    context: PullContext,
    say: (line: string) => void,
  ): Promise<void> {
    const under = this.inFlight.get(digest);
    if (under) say(`${digest} is being pulled for another job: waiting for it`);
    const pulling = (async () => {
      if (
        under &&
        !(await under.then(
          () => true,
          () => false,
        ))
      )
        say(`the other job's pull of ${digest} failed: pulling it for this job`);
      if (await this.inventory.useIfCached(digest, ref.canonical)) return;
      await this.fetch(ref, digest, home, context, say);
    })();
    const entry: Promise<void> = pulling.finally(() => {
      if (this.inFlight.get(digest) === entry) this.inFlight.delete(digest);
    });
    this.inFlight.set(digest, entry);
    await entry;
  }

  /** Copies the image by digest into the layout (blobs it has are not fetched again) and unpacks it once. */
  private fetch(ref: ImageReference, digest: string, home: ToolHome, context: PullContext, say: (line: string) => void): Promise<void> {
    const tag = nameOfDigest(digest);
    const rootfs = this.rootfsOf(digest);
    return this.layoutLock.run(async () => {
      if (await this.inventory.useIfCached(digest, ref.canonical)) return say(`${digest} was pulled by another server process meanwhile`);
      mkdirSync(this.layout, { recursive: true });
      const copyStarted = Date.now();
      const source = `docker://${ref.registry}/${ref.repository}@${digest}`;
      const copy = [
        `--registries-conf=${home.registriesConf}`,
        'copy',
        `--authfile=${home.authFile}`,
        ...this.tls(ref, '--src-tls-verify=false'),
        source,
        `oci:${this.layout}:${tag}`,
      ];
      const copied = await runTool(this.skopeo, copy, home.env, say);
      if (copied.code !== 0) throw classifyPullFailure(copied.stderr, context);
      say(`Copied into the cache in ${seconds(copyStarted)}`);
      const unpackStarted = Date.now();
      await this.unpack(ref, tag, rootfs, home, context);
      say(`Unpacked into ${rootfs} in ${seconds(unpackStarted)}`);
    });
  }

  /**
   * Unpacks beside the final place, readies it for the sandbox (rootfs-prepare.ts), keeps its config,
   * makes it read-only, then renames it in: a rootfs that exists is whole, and has its config.
   */
  private async unpack(ref: ImageReference, tag: string, rootfs: string, home: ToolHome, context: PullContext): Promise<void> {
    const partial = `${path.dirname(rootfs)}/.unpacking-${path.basename(rootfs)}-${process.pid}`;
    mkdirSync(path.dirname(rootfs), { recursive: true });
    await removeTree(partial);
    const unpacked = await runTool(this.umoci, ['raw', 'unpack', '--rootless', `--image=${this.layout}:${tag}`, partial], home.env);
    if (unpacked.code !== 0) {
      await removeTree(partial);
      throw classifyPullFailure(unpacked.stderr, context);
    }
    const digest = tag.replace('-', ':');
    try {
      prepareRootfs(partial);
      const configFile = this.paths.configFileOf(digest);
      mkdirSync(path.dirname(configFile), { recursive: true });
      writeFileSync(configFile, JSON.stringify(this.readConfig(digest, partial)));
      this.inventory.recordPulled(digest, ref.canonical, partial);
    } catch (error) {
      await removeTree(partial);
      throw classifyPullFailure(String((error as Error).message), context);
    }
    // Read-only, and no setuid or setgid program left on the host (in a task they would do nothing: it has no new privileges).
    const readOnly = await runTool('chmod', ['-R', 'a-w,ug-s', partial], home.env);
    if (readOnly.code !== 0) throw new ImagePullError('failed', `could not make ${partial} read-only: ${readOnly.stderr.trim()}`);
    renameSync(partial, rootfs);
  }

  private tls(ref: ImageReference, flag: string): string[] {
    return this.insecure.has(ref.registry) ? [flag] : [];
  }
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}
