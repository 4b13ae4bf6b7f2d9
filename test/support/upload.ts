import assert from 'node:assert/strict';

/** Uploads a file into a project's Data (POST /api/runyard/datasets/upload); answers its id. */
export async function uploadFile(
  base: string,
  apikey: string,
  where: { workspaceId: string; projectId: string },
  name: string,
  text: string,
): Promise<string> {
  const query = `teamId=${where.workspaceId}&projectId=${where.projectId}&name=${encodeURIComponent(name)}`;
  const r = await fetch(`${base}/api/runyard/datasets/upload?${query}`, {
    method: 'POST',
    headers: { apikey, 'content-type': 'application/octet-stream' },
    body: text,
  });
  assert.equal(r.status, 201, await r.clone().text());
  return ((await r.json()) as { _id: string })._id;
}
