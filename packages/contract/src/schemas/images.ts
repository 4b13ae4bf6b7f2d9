import { Type, type Static } from '@sinclair/typebox';
import { IsoTime } from './common.js';

/** An image's manifest digest, as the cache names it. */
export const ImageDigest = Type.String({ pattern: '^sha256:[0-9a-f]{64}$', description: 'sha256:<64 lowercase hex digits>' });

const imageFields = {
  digest: ImageDigest,
  /** The references it was pulled as (`registry/repository:tag`), most recent last. */
  references: Type.Array(Type.String()),
  /** Its unpacked root filesystem on disk; its layers in the cache's OCI layout, shared with other images, are not counted. */
  sizeBytes: Type.Integer({ minimum: 0 }),
  pulledAt: IsoTime,
  /** Its last pull, whether it was in the cache or not. */
  lastUsedAt: IsoTime,
};

/** An image in the shared cache of container jobs. */
export const CachedImage = Type.Object({
  ...imageFields,
  /** Jobs that use it now (initializing, running or aborting): it is not removed while any does. */
  jobs: Type.Integer({ minimum: 0 }),
});
export type CachedImage = Static<typeof CachedImage>;

/** An image a prune removed. */
export const RemovedImage = Type.Object(imageFields);
export type RemovedImage = Static<typeof RemovedImage>;

export const ImageCacheListing = Type.Object({
  /** Least recently used first: the order in which eviction removes the unused ones. */
  images: Type.Array(CachedImage),
  totalBytes: Type.Integer({ minimum: 0 }),
  /** imageCacheLimitGiB in bytes. */
  limitBytes: Type.Integer({ minimum: 0 }),
});
export type ImageCacheListing = Static<typeof ImageCacheListing>;

/** Without a key: the unused images beyond the limit, least recently used first. */
export const ImagePruneBody = Type.Object(
  {
    /** Every image no job uses. */
    all: Type.Optional(Type.Boolean()),
    /** This image only (refused while a job uses it). */
    digest: Type.Optional(ImageDigest),
  },
  { additionalProperties: false },
);
export type ImagePruneBody = Static<typeof ImagePruneBody>;

export const ImagePruneReply = Type.Object({
  removed: Type.Array(RemovedImage),
  /** The cache after the prune. */
  images: Type.Array(CachedImage),
  totalBytes: Type.Integer({ minimum: 0 }),
  limitBytes: Type.Integer({ minimum: 0 }),
});
export type ImagePruneReply = Static<typeof ImagePruneReply>;
