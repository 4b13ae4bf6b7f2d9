import { ImagePullError } from './pull-error.js';

/**
 * An image reference read with Docker's naming rules (distribution/reference's normalized names):
 * `ubuntu` is `docker.io/library/ubuntu:latest`, `user/img:tag` is on Docker Hub, and a first
 * component with a dot, a port or `localhost` (or a capital letter) names the registry.
 */
export interface ImageReference {
  /** `docker.io`, `ghcr.io`, `127.0.0.1:5000`: the key credentials are linked under. */
  registry: string;
  /** `library/ubuntu`, `team/tool`. */
  repository: string;
  /** null only when a digest is given without a tag. */
  tag: string | null;
  digest: string | null;
  /** `registry/repository[:tag][@digest]`, what skopeo is given after `docker://`. */
  canonical: string;
}

const DOCKER_HUB = 'docker.io';
// Docker's grammar, from distribution/reference/regexp.go.
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[0-9a-f]{32,}$/;
const MAX_NAME = 255;

/** Parses `image`, or throws an ImagePullError of kind `invalid-reference` saying what is wrong. */
export function parseImageReference(image: string): ImageReference {
  const invalid = (why: string) => new ImagePullError('invalid-reference', `"${image}" is not an image reference: ${why}`);
  let rest = image.trim();
  if (!rest) throw invalid('it is empty');

  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw invalid(`"${digest}" is not a digest (sha256:<64 hex digits>)`);
  }
  let tag: string | null = null;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw invalid(`"${tag}" is not a tag`);
  }

  const slash = rest.indexOf('/');
  const first = slash < 0 ? '' : rest.slice(0, slash);
  // Docker's test: a first component is a registry when it has a dot, a port, is localhost, or is not all lower case.
  const namesRegistry = slash >= 0 && (/[.:]/.test(first) || first === 'localhost' || first !== first.toLowerCase());
  let registry = namesRegistry ? first : DOCKER_HUB;
  let repository = namesRegistry ? rest.slice(slash + 1) : rest;
  if (!DOMAIN.test(registry)) throw invalid(`"${registry}" is not a registry host`);
  if (registry === 'index.docker.io') registry = DOCKER_HUB;
  if (registry === DOCKER_HUB && !repository.includes('/')) repository = `library/${repository}`;

  const bad = repository.split('/').find((c) => !COMPONENT.test(c));
  if (bad !== undefined) {
    throw invalid(bad !== bad.toLowerCase() ? 'repository names must be lower case' : `"${bad}" is not a valid path component`);
  }
  if (registry.length + 1 + repository.length > MAX_NAME) throw invalid(`names are at most ${MAX_NAME} characters`);
  if (tag === null && digest === null) tag = 'latest';

  const canonical = `${registry}/${repository}${tag ? `:${tag}` : ''}${digest ? `@${digest}` : ''}`;
  return { registry, repository, tag, digest, canonical };
}
