import { InvalidArgumentError } from 'commander';

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** The id if it is one (24 hexadecimal characters, any case), lower-cased as the server stores it; else undefined. */
export function asObjectId(value: string): string | undefined {
  const id = value.trim().toLowerCase();
  return OBJECT_ID.test(id) ? id : undefined;
}

/** What an id of this kind looks like, for a person who typed something else. */
export function objectIdProblem(kind: string, where: string): string {
  return `A ${kind} id is 24 hexadecimal characters (0-9, a-f), as ${where} shows.`;
}

/**
 * An option parser for the id of a `kind` ("job", "workspace"); `where` says where to find one.
 * Checked here so that a typo gets a sentence, not the server's schema pattern.
 */
export function objectId(kind: string, where: string): (value: string) => string {
  return (value) => {
    const id = asObjectId(value);
    if (!id) throw new InvalidArgumentError(objectIdProblem(kind, where));
    return id;
  };
}

export const jobId = objectId('job', '"runyard job list"');
export const sessionId = objectId('session', '"runyard interactive-session list"');
