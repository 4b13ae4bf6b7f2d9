/*
 * runyard-enter: the first program of a task that runs in an image (executors/sandbox/image-root.ts).
 * bwrap execs it inside the sandbox, where everything under / but /.runyard is the image's; it
 * resets the stop signals that the wrapper made bwrap ignore, drops root to the task's host user
 * when the server runs as root (--uid/--gid: no groups, no capabilities, no new privileges), and
 * execs the task's program, found on the task's PATH.
 *
 * Static on purpose: it runs as root before the drop, so nothing of the image may run in it. A
 * dynamic program would load the image's /etc/ld.so.preload and honour LD_PRELOAD, LD_LIBRARY_PATH
 * or GLIBC_TUNABLES from the image's environment as root; this one loads no library, reads no
 * file and looks up no name (ids are numbers).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void fail(const char *what) {
  fprintf(stderr, "runyard-enter: %s: %s\n", what, strerror(errno));
  _exit(127);
}

static long number(const char *text) {
  char *end;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno || *end || value < 0 || value > 4294967294L) {
    fprintf(stderr, "runyard-enter: not an id: %s\n", text);
    _exit(127);
  }
  return value;
}

/* Root to uid:gid for good: no capabilities left in any set, no way back, no new privileges. */
static void drop(long uid, long gid) {
  for (int cap = 0; cap <= 63; cap++)
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL) fail("dropping the capability bounding set");
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  if (syscall(SYS_capget, &header, data)) fail("reading capabilities");
  data[0].inheritable = data[1].inheritable = 0;
  if (syscall(SYS_capset, &header, data)) fail("clearing inheritable capabilities");
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL) fail("clearing ambient capabilities");
  if (setgroups(0, NULL)) fail("clearing groups");
  if (setresgid(gid, gid, gid)) fail("setting the group");
  if (setresuid(uid, uid, uid)) fail("setting the user");
  if (getuid() != uid || geteuid() != uid || getgid() != gid || setuid(0) == 0) {
    fprintf(stderr, "runyard-enter: the user did not change\n");
    _exit(127);
  }
}

int main(int argc, char **argv) {
  /* What the container runtime's probe runs (engines/container-runtime.ts): a static program any rootfs can hold. */
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    puts("runyard-enter 1");
    return 0;
  }
  long uid = -1, gid = -1;
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    if (!strcmp(argv[i], "--uid") && i + 1 < argc) uid = number(argv[++i]);
    else if (!strcmp(argv[i], "--gid") && i + 1 < argc) gid = number(argv[++i]);
    else {
      fprintf(stderr, "usage: runyard-enter [--uid N --gid N] -- program [args...]\n");
      return 127;
    }
  }
  if (i + 1 >= argc || (uid < 0) != (gid < 0)) {
    fprintf(stderr, "usage: runyard-enter [--uid N --gid N] -- program [args...]\n");
    return 127;
  }
  /* Every signal back to its default and unblocked, as a fresh process has them. */
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (uid >= 0) drop(uid, gid);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) fail("setting no-new-privileges");
  execvp(argv[i + 1], argv + i + 1);
  int code = errno == ENOENT ? 127 : 126;
  fprintf(stderr, "runyard-enter: %s: %s (in the image)\n", argv[i + 1], strerror(errno));
  return code;
}
