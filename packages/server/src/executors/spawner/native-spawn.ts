import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The native module (packages/server/native/posix-spawn.c, built by scripts/build-native.mjs). */
export interface NativeSpawn {
  /**
   * Starts `program` (an absolute path) with argv [program, ...args], exactly the environment `env`
   * ("NAME=value"), in `cwd`, in a session of its own, stdin /dev/null, stdout and stderr `outFd`.
   * Answers its pid; throws as Node's spawn does ("spawn <program> ENOENT", code ENOENT).
   * onExit gets its exit code (null when a signal ended it) and that signal's number.
   */
  spawn(
    program: string,
    args: string[],
    env: string[],
    cwd: string,
    outFd: number,
    onExit: (code: number | null, signal: number | null) => void,
  ): number;
}

/** Where the build puts it, from this file in src/ (tests) or dist/: packages/server/native/build. */
const MODULE = fileURLToPath(new URL('../../../native/build/posix-spawn.node', import.meta.url));

/** Set to `off` in the spawner process's environment (by Spawner, from the setting nativeSpawn): Node's spawn, always. */
export const NATIVE_SPAWN_ENV = 'RUNYARD_NATIVE_SPAWN';

/** The native module, or why it is not used. */
export function loadNativeSpawn(setting: string | undefined, module = MODULE): NativeSpawn | { unavailable: string } {
  if (setting === 'off') return { unavailable: `${NATIVE_SPAWN_ENV}=off` };
  try {
    return createRequire(import.meta.url)(module) as NativeSpawn;
  } catch (e) {
    return { unavailable: (e as Error).message.split('\n')[0] ?? 'not loadable' };
  }
}

/**
 * The start's note where tasks will not start through posix_spawn although the setting is auto
 * (the module was not built: no C compiler or Node's headers), else null. The server process loads
 * the module as its spawner will, to tell.
 */
export function nativeSpawnNote(setting: 'auto' | 'off', module = MODULE): string | null {
  if (setting === 'off') return null;
  const loaded = loadNativeSpawn('auto', module);
  if ('spawn' in loaded) return null;
  return (
    `Note: job tasks start through Node's spawn, not posix_spawn (${loaded.unavailable}), at a few milliseconds more CPU a task; ` +
    `a build with a C compiler and Node's headers makes the native module (scripts/build-native.mjs).`
  );
}

/**
 * The task's environment as the native module takes it ("NAME=value"), once its program, working
 * directory, arguments and environment are checked: a NUL byte would cut a C string short (and so
 * change the command), so it is refused, as Node's spawn refuses it.
 */
export function nulFreeEnvironment(request: { program: string; args: string[]; cwd: string; env: Record<string, string> }): string[] {
  const env = Object.entries(request.env).map(([name, value]) => `${name}=${value}`);
  for (const word of [request.program, request.cwd, ...request.args, ...env])
    if (word.includes('\0'))
      throw new TypeError(`A NUL byte in the task's command, working directory or environment: ${JSON.stringify(word)}`);
  return env;
}
