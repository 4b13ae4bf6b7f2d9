/** The SDK, loaded on first use so that `--version`, `--help` and usage errors never pay for it. */
export function loadSdk(): Promise<typeof import('@runyard/client')> {
  return import('@runyard/client');
}
