/** The connection flags for a server, a key and (optionally) a workspace. */
export function connectionArgs(url: string, apikey: string, workspaceId?: string): string[] {
  return ['--platform-url', url, '--apikey', apikey, ...(workspaceId ? ['--workspace-id', workspaceId] : [])];
}
