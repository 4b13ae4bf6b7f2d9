import type { Config } from '../config.js';

export type NextflowS3Settings = Pick<
  Config,
  's3Endpoint' | 's3Region' | 's3ForcePathStyle' | 's3AccessKeyId' | 's3SecretAccessKey' | 's3TaskCredentials' | 's3WorkspaceCredentials'
> & { storageBackend: string };

/** A Groovy string literal in single quotes (no interpolation): the value can only be text. */
function groovyString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/**
 * What a Nextflow task needs for s3:// paths when the store is S3: the region and keys as the
 * environment variables Nextflow reads (Global.getAwsCredentials0: AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY; AWS_DEFAULT_REGION before 23.x, AWS_REGION for the AWS SDK), and the
 * endpoint as configuration (aws.client.endpoint and s3PathStyleAccess: Nextflow has no variable
 * for them). The keys are the workspace's own (RUNYARD_S3_WORKSPACE_CREDENTIALS), the storage's
 * only when the operator says so (they reach every workspace's bucket), or none.
 */
export function nextflowS3(config: NextflowS3Settings, workspaceId: string): { env: Record<string, string>; configLines: string[] } {
  if (config.storageBackend !== 's3') return { env: {}, configLines: [] };
  const env: Record<string, string> = { AWS_REGION: config.s3Region, AWS_DEFAULT_REGION: config.s3Region };
  const keys =
    config.s3TaskCredentials === 'workspace'
      ? config.s3WorkspaceCredentials[workspaceId]
      : config.s3TaskCredentials === 'storage' && config.s3AccessKeyId
        ? { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey }
        : undefined;
  if (keys) Object.assign(env, { AWS_ACCESS_KEY_ID: keys.accessKeyId, AWS_SECRET_ACCESS_KEY: keys.secretAccessKey });
  const configLines = [`aws.region = ${groovyString(config.s3Region)}`];
  if (config.s3Endpoint) configLines.push(`aws.client.endpoint = ${groovyString(new URL(config.s3Endpoint).href.replace(/\/$/, ''))}`);
  if (config.s3ForcePathStyle) configLines.push('aws.client.s3PathStyleAccess = true');
  return { env, configLines };
}
