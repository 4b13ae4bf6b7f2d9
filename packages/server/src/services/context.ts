/** Who is calling, from the API key; services never see the HTTP request. */
export interface AuthUser {
  id: string;
  username: string;
  name: string;
  surname: string;
  email: string;
  isAdmin: boolean;
  /** The API key the caller authenticated with (directly, or when signing in to the dashboard); none for an engine token. */
  apiKeyId?: string;
}

/** A caller acting inside one workspace they belong to (checked before any service runs). */
export interface Context {
  user: AuthUser;
  workspaceId: string;
  role: string;
}
