import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What an executor needs of a registered HPC cluster (services/hpc-clusters.ts registers them). */
export interface HpcClusterRecord {
  id: string;
  name: string;
  /** argv put before every Slurm command (e.g. ["ssh", "login1"]); run without a shell. */
  submitPrefix: string[];
  /** The first is the default. */
  partitions: string[];
  /** Where the server and every node see the same files: jobs' directories must be inside it. */
  sharedDirectory: string;
}

/** A JSON array column of strings (submit_prefix, partitions) as an array; what is not a string is dropped. */
export function stringArray(text: string): string[] {
  const value = JSON.parse(text) as unknown;
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The cluster of an id, read from the database each time: a cluster registered while the server
 * runs is used at once, and its settings are never stale.
 */
export function hpcClusterLookup(db: Kysely<Database>): (id: string) => Promise<HpcClusterRecord | null> {
  return async (id) => {
    const row = await db.selectFrom('hpc_clusters').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return null;
    return {
      id: row.id,
      name: row.name,
      submitPrefix: stringArray(row.submit_prefix),
      partitions: stringArray(row.partitions),
      sharedDirectory: row.shared_dir,
    };
  };
}
