type ServerModule = typeof import('@runyard/server');

/**
 * The server package (an ES module), loaded when `server start` runs. The bin runs the CLI's
 * bundle as a script (with its code cache, bin/runyard.js), where import() would need an
 * experimental flag on Node 20: the bin then lends its own import as globalThis.runyardImportServer.
 */
export function loadServer(): Promise<ServerModule> {
  const lent = (globalThis as { runyardImportServer?: () => Promise<ServerModule> }).runyardImportServer;
  return lent ? lent() : import('@runyard/server');
}
