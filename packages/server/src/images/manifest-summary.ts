/**
 * One line about a manifest for the job's log: its layers (short digest, compressed size) and their total, or, for a
 * list of platform images, how many there are (skopeo copies the one for this machine).
 */
export function manifestSummary(raw: Buffer): string {
  let manifest: { layers?: { size?: number; digest?: string }[]; manifests?: unknown[] };
  try {
    manifest = JSON.parse(raw.toString()) as typeof manifest;
  } catch {
    return 'a manifest that is not JSON';
  }
  if (Array.isArray(manifest.layers)) {
    const bytes = manifest.layers.reduce((sum, layer) => sum + (layer.size ?? 0), 0);
    const count = manifest.layers.length;
    const each = manifest.layers.map((layer) => `${(layer.digest ?? '?').slice(0, 19)} ${formatBytes(layer.size ?? 0)}`);
    return `${count} layer${count === 1 ? '' : 's'}, ${formatBytes(bytes)} (${each.join(', ')})`;
  }
  if (Array.isArray(manifest.manifests)) return `a list of ${manifest.manifests.length} platform images (this machine's is pulled)`;
  return 'a manifest without layers';
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
