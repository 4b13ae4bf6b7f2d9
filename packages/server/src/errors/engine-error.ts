/** A problem with the job itself (no command, no nextflow, a bad image name, an input that is gone): the job fails with this message. */
export class EngineError extends Error {
  override name = 'EngineError';
}
