import path from 'node:path';
import { EngineError } from './engine.js';

/**
 * Logging in to the image's registry before a container job pulls it (batch.dockerLogin), with the
 * job's user's linked account. The password goes to the runtime's `login --password-stdin` through
 * a pipe from a shell builtin: never an argument, never a file of the job. The runtime keeps the
 * login in a file of the attempt beside its control files (docker: DOCKER_CONFIG, podman:
 * REGISTRY_AUTH_FILE), which the script removes when the container has ended.
 */
export const LOGIN_SCRIPT = [
  'r=$1',
  'shift',
  "trap ':' TERM INT HUP",
  'printf \'%s\' "$RUNYARD_REGISTRY_PASSWORD" | "$r" login --username "$RUNYARD_REGISTRY_USER" --password-stdin "$RUNYARD_REGISTRY" >/dev/null || {',
  '  printf \'Runyard: the login to the registry %s failed.\\n\' "$RUNYARD_REGISTRY" >&2',
  '  exit 125',
  '}',
  'unset RUNYARD_REGISTRY_PASSWORD',
  '"$@"',
  'c=$?',
  // Absolute: the task's PATH may not hold rm (it is the operator's RUNYARD_TASK_PATH).
  '/bin/rm -rf "${DOCKER_CONFIG:-}" "${REGISTRY_AUTH_FILE:-}"',
  'exit "$c"',
].join('\n');

/** The registry an image reference pulls from: its first component when it names a host, else Docker Hub. */
export function registryOf(image: string): string {
  const first = image.split('/')[0];
  const isHost = image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  return isHost ? first.toLowerCase() : 'docker.io';
}

const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** Where the runtime keeps a login: a file or directory of the attempt (see LOGIN_SCRIPT). */
export function registryAuthEnv(runtime: string, authDir: string): Record<string, string> {
  return path.basename(runtime) === 'podman' ? { REGISTRY_AUTH_FILE: `${authDir}.json` } : { DOCKER_CONFIG: authDir };
}

/**
 * argv and variables that log in with `runtime`, then run `argv` (the runtime's `run`, or what runs it): the account for the image's
 * registry, or an EngineError naming the registry when the user linked none. authDir null: each
 * run sets where its login is kept (registryAuthEnv; the rows of an array job, which run at once).
 */
export function withRegistryLogin(
  runtime: string,
  argv: string[],
  image: string,
  accounts: { registry: string; username: string; password: string }[],
  authDir: string | null,
): { argv: string[]; env: Record<string, string> } {
  const registry = registryOf(image);
  const account = accounts.find((a) => a.registry === registry || (DOCKER_HUB.has(a.registry) && DOCKER_HUB.has(registry)));
  if (!account) {
    throw new EngineError(
      `dockerLogin: you have no docker registry account at "${registry}" (the registry of the image ${image}); ` +
        `link one with "runyard user docker-login --registry ${registry} --username NAME".`,
    );
  }
  const auth = authDir === null ? {} : registryAuthEnv(runtime, authDir);
  return {
    argv: ['/bin/sh', '-c', LOGIN_SCRIPT, 'runyard-registry-login', runtime, ...argv],
    env: {
      RUNYARD_REGISTRY: account.registry,
      RUNYARD_REGISTRY_USER: account.username,
      RUNYARD_REGISTRY_PASSWORD: account.password,
      ...auth,
    },
  };
}
