import { keepPreviousData, useQuery, type QueryClient } from '@tanstack/react-query';
import type { RunyardApi } from '../../api/client';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { listFolder, listProject, type ExplorerItem, type Listing } from './explorer-api';

/** Every query of a project's File Explorer starts so: one invalidation refreshes them all after a change. */
export const explorerKey = (teamId: string, projectId: string | null) => ['explorer', teamId, projectId] as const;

/** Where a path leads: the folders along it (the last is the one shown) and what it holds. */
export interface Walk {
  trail: ExplorerItem[];
  listing: Listing;
}

/**
 * Follows a path of names (as the CLI's `datasets ls Data/a/b`) one level at a time; each level's
 * listing is cached on its own, so going one folder deeper lists only the new one. The level shown
 * is always asked again; those above it are reused for half a minute.
 */
export async function walk(qc: QueryClient, api: RunyardApi, teamId: string, projectId: string, segments: string[]): Promise<Walk> {
  const level = (depth: number, list: () => Promise<Listing>) =>
    qc.fetchQuery({
      queryKey: [...explorerKey(teamId, projectId), 'level', ...segments.slice(0, depth)],
      queryFn: list,
      staleTime: depth === segments.length ? 0 : 30_000,
    });
  let listing = await level(0, () => listProject(api, teamId, projectId));
  const trail: ExplorerItem[] = [];
  for (let i = 0; i < segments.length; i++) {
    const folder = listing.folders.find((f) => f.name === segments[i]);
    if (!folder) {
      const where = i === 0 ? 'this project' : `"${segments.slice(0, i).join('/')}"`;
      throw new Error(`There is no folder "${segments[i]}" in ${where}.`);
    }
    trail.push(folder);
    listing = await level(i + 1, () => listFolder(api, teamId, folder));
  }
  return { trail, listing };
}

/** The File Explorer at `segments` of a project (nothing until a project is chosen); the previous folder stays shown while the next loads. */
export function useExplorer(qc: QueryClient, projectId: string | null, segments: string[]) {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  return useQuery({
    queryKey: [...explorerKey(workspaceId, projectId), 'walk', ...segments],
    queryFn: () => walk(qc, api, workspaceId, projectId!, segments),
    enabled: Boolean(projectId),
    placeholderData: keepPreviousData,
  });
}

/** Splits a path given in the URL (`Data/a/b`) into its names, without empty ones. */
export function segmentsOf(path: string | null): string[] {
  return (path ?? '').split('/').filter(Boolean);
}
