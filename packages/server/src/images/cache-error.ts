/** Why the cache refused to remove an image: it is not there, or a job uses it now. */
export type ImageCacheErrorKind = 'not-cached' | 'in-use';

export class ImageCacheError extends Error {
  constructor(
    readonly kind: ImageCacheErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ImageCacheError';
  }
}
