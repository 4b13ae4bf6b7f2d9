// Starts a detached process with posix_spawn, for the spawner process (spawner-process.ts).
//
// Node's child_process forks: the kernel copies the forking process's page tables and the parent
// then takes a copy-on-write fault on every page it writes. From the spawner, a small Node process,
// that cost 4.7 ms of CPU a start on a 2-core VM (measured: a C program with a 10 MB heap, fork
// 7.9 ms of the parent's CPU, posix_spawn 0.2 ms). glibc's posix_spawn clones with CLONE_VM and
// CLONE_VFORK: nothing is copied. The child is set up as Node's spawn(detached: true) sets it up:
// a session of its own, every signal at its default and none blocked, stdin /dev/null, stdout and
// stderr the given descriptor, the given working directory, exactly the given environment.
//
// Its end is watched through a pidfd polled on the event loop; it is reaped there and the
// callback gets its exit code (null when a signal ended it) and the signal's number (or null).
// libuv reaps only the children it started, so it never takes this one's status.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

typedef struct {
  uv_poll_t poll;
  pid_t pid;
  int pidfd;
  napi_env env;
  napi_ref callback;
  napi_async_context context;
} watched_child;

static int pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

static napi_value throw_errno(napi_env env, const char *what, int err) {
  // The shape of Node's spawn errors: "spawn /bin/sh ENOENT", with .code the errno's name.
  const char *name = strerrorname_np(err);
  char message[4096];
  snprintf(message, sizeof message, "%s %s", what, name ? name : strerror(err));
  napi_value code, text, error;
  napi_create_string_utf8(env, name ? name : "EUNKNOWN", NAPI_AUTO_LENGTH, &code);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &text);
  napi_create_error(env, code, text, &error);
  napi_throw(env, error);
  return NULL;
}

/** Every NULL this module's helpers answer comes with a pending exception: spawn() then throws, never answers nothing. */
static void *out_of_memory(napi_env env) {
  napi_throw_error(env, "ENOMEM", "spawn: out of memory");
  return NULL;
}

/** A JS string as a malloc'd C string; NULL (with an error thrown) when it is not a string or memory ran out. */
static char *string_of(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, "a string was expected");
    return NULL;
  }
  char *text = malloc(length + 1);
  if (!text) return out_of_memory(env);
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  return text;
}

static void free_list(char **list) {
  if (!list) return;
  for (char **p = list; *p; p++) free(*p);
  free(list);
}

/** A JS array of strings as a NULL-terminated list, with `first` before them when given. */
static char **list_of(napi_env env, napi_value array, const char *first) {
  uint32_t n;
  if (napi_get_array_length(env, array, &n) != napi_ok) {
    napi_throw_type_error(env, NULL, "an array of strings was expected");
    return NULL;
  }
  size_t offset = first ? 1 : 0;
  char **list = calloc(n + offset + 1, sizeof *list);
  if (!list) return out_of_memory(env);
  if (first && !(list[0] = strdup(first))) return free_list(list), out_of_memory(env);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    napi_get_element(env, array, i, &item);
    if (!(list[i + offset] = string_of(env, item))) return free_list(list), NULL;
  }
  return list;
}

static void closed(uv_handle_t *handle) {
  watched_child *child = (watched_child *)handle;
  close(child->pidfd);
  free(child);
}

static void ended(uv_poll_t *poll, int status, int events) {
  (void)status;
  (void)events;
  watched_child *child = (watched_child *)poll;
  int wstatus;
  pid_t reaped;
  do reaped = waitpid(child->pid, &wstatus, WNOHANG);
  while (reaped < 0 && errno == EINTR);
  if (reaped == 0) return;  // Not ended yet (a readable pidfd says it has): wait for the next event.
  uv_poll_stop(poll);
  napi_env env = child->env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value callback, receiver, argv[2], result;
  napi_get_reference_value(env, child->callback, &callback);
  napi_get_global(env, &receiver);  // MakeCallback wants an object as `this`.
  if (reaped > 0 && WIFEXITED(wstatus)) napi_create_int32(env, WEXITSTATUS(wstatus), &argv[0]);
  else napi_get_null(env, &argv[0]);
  if (reaped > 0 && WIFSIGNALED(wstatus)) napi_create_int32(env, WTERMSIG(wstatus), &argv[1]);
  else napi_get_null(env, &argv[1]);
  napi_delete_reference(env, child->callback);
  napi_async_context context = child->context;
  uv_close((uv_handle_t *)poll, closed);
  if (napi_make_callback(env, context, receiver, callback, 2, argv, &result) == napi_pending_exception) {
    napi_value error;
    napi_get_and_clear_last_exception(env, &error);
    napi_fatal_exception(env, error);
  }
  napi_async_destroy(env, context);
  napi_close_handle_scope(env, scope);
}

/**
 * spawn(program, args, env, cwd, outFd, onExit): starts `program` (an absolute path) with argv
 * [program, ...args] and exactly the environment `env` ("NAME=value" strings); answers its pid,
 * or throws (ENOENT, ENOTDIR, ...: an error with the errno's name as its code).
 */
static napi_value spawn(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value args[6];
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  if (argc < 6) return napi_throw_type_error(env, NULL, "spawn(program, args, env, cwd, outFd, onExit)"), NULL;
  int32_t out_fd;
  if (napi_get_value_int32(env, args[4], &out_fd) != napi_ok || out_fd < 3)
    return napi_throw_type_error(env, NULL, "outFd must be a descriptor above 2"), NULL;
  napi_valuetype type;
  napi_typeof(env, args[5], &type);
  if (type != napi_function) return napi_throw_type_error(env, NULL, "onExit must be a function"), NULL;

  napi_value result = NULL;
  char *program = NULL, *cwd = NULL, **argv = NULL, **envp = NULL;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  if (!(program = string_of(env, args[0])) || !(cwd = string_of(env, args[3]))) goto done;
  if (program[0] != '/') {
    napi_throw_type_error(env, NULL, "the program must be an absolute path");
    goto done;
  }
  if (!(argv = list_of(env, args[1], program)) || !(envp = list_of(env, args[2], NULL))) goto done;

  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 2);
  posix_spawn_file_actions_addchdir_np(&actions, cwd);

  char what[4200];
  snprintf(what, sizeof what, "spawn %s", program);
  pid_t pid;
  int err = posix_spawn(&pid, program, &actions, &attributes, argv, envp);
  if (err) {
    throw_errno(env, what, err);
    goto done;
  }
  watched_child *child = calloc(1, sizeof *child);
  uv_loop_t *loop;
  int pidfd = -1, watch_error = 0;
  if (!child) watch_error = ENOMEM;
  else if ((pidfd = pidfd_open(pid)) < 0) watch_error = errno;
  else if (napi_get_uv_event_loop(env, &loop) != napi_ok) watch_error = EINVAL;
  else watch_error = -uv_poll_init(loop, &child->poll, pidfd);  // libuv's errors are negated errnos on Linux.
  if (watch_error) {
    // Not watchable (out of descriptors): a task nobody follows must not run.
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    if (pidfd >= 0) close(pidfd);
    free(child);
    throw_errno(env, what, watch_error);
    goto done;
  }
  child->pid = pid;
  child->pidfd = pidfd;
  child->env = env;
  napi_value name;
  napi_create_string_utf8(env, "runyard:posix-spawn", NAPI_AUTO_LENGTH, &name);
  napi_create_reference(env, args[5], 1, &child->callback);
  napi_async_init(env, NULL, name, &child->context);
  uv_poll_start(&child->poll, UV_READABLE, ended);
  napi_create_int32(env, pid, &result);

done:
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  free(program);
  free(cwd);
  free_list(argv);
  free_list(envp);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  // Without pidfds (Linux before 5.3) an end could not be watched: the module refuses to load.
  int probe = pidfd_open(getpid());
  if (probe < 0) {
    napi_throw_error(env, "ENOSYS", "pidfd_open is not available: tasks start through Node's spawn");
    return NULL;
  }
  close(probe);
  napi_value function;
  napi_create_function(env, "spawn", NAPI_AUTO_LENGTH, spawn, NULL, &function);
  napi_set_named_property(env, exports, "spawn", function);
  return exports;
}

NAPI_MODULE(posix_spawn, init)
